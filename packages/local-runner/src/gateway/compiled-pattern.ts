// The gateway matches every request against the same few patterns (the template's binary media types, a cached
// policy's resources): each is compiled to a RegExp once. The patterns kept are bounded: the template's change with each
// reload, and a policy's come from an authorizer's answers, so a long session would otherwise keep every one it saw. The
// least recently used goes first.

/** How many compiled patterns are kept, at most: far more than a template and its authorizers' policies use at once. */
export const maxKeptPatterns = 1_000;

const compiled = new Map<string, RegExp>();

export const compiledPattern = (source: string): RegExp => {
  const kept = compiled.get(source);
  if (kept) {
    // Kept in the order of use, the most recent last.
    compiled.delete(source);
    compiled.set(source, kept);
    return kept;
  }
  const pattern = new RegExp(source);
  compiled.set(source, pattern);
  if (compiled.size > maxKeptPatterns) {
    const [oldest] = compiled.keys();
    if (oldest !== undefined) compiled.delete(oldest);
  }
  return pattern;
};
