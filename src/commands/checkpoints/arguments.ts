// What several of checkpoints' definitions share.

export const MODEL_ARG = 'model id, or a name created from this machine (team/project/name or name)';
