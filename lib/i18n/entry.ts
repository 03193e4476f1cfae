/**
 * What a catalogue entry is, apart from the catalogues (so they and the lookup do not import
 * each other): a string with `{name}` placeholders, or a function of the parameters where the
 * words depend on them.
 */
export type Params = Record<string, string | number>;
export type Entry = string | ((p: Params) => string);
