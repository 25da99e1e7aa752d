// The fault matrix, part 1 of 5: its cases and how they are split are in fault-matrix.ts.

import { faultMatrixPart } from './fault-matrix.js';

faultMatrixPart(1);
