// What several of jobs' definitions share.

export const JOB = 'job id, or the start of one created from this machine (at least 4 characters)';
