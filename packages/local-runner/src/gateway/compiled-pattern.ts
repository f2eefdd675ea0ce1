// The gateway matches every request against the same few patterns of the template (binary media types, a cached
// policy's resources): each is compiled to a RegExp once.
const compiled = new Map<string, RegExp>();

export const compiledPattern = (source: string): RegExp => {
  let pattern = compiled.get(source);
  if (!pattern) {
    pattern = new RegExp(source);
    compiled.set(source, pattern);
  }
  return pattern;
};
