// What several of config's definitions share.

import { Argument } from '@commander-js/extra-typings';
import { SETTING_KEYS } from '../../settings/keys.js';

/** The <key> of get, set and unset: a setting's name (made afresh: an Argument belongs to one command). */
export const keyArgument = () => new Argument('<key>', 'setting name').choices(SETTING_KEYS);
