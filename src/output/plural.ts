// A count with its noun, singular for one: "1 trajectory", "2 trajectories". One helper, so that no
// message says "1 trajectories" because its author wrote the plural into a template.

export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** The noun for a count of trajectories, which is not made by adding an s. */
export const trajectories = (n: number) => plural(n, 'trajectory', 'trajectories');
