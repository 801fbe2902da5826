// The types of node-runtime.js, for the tests that use it.
export function nodeRuntime(version: string, arch?: string): string
