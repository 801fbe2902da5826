// The test lanes. The fast lane is the inner loop's (`npm test`): the engine's tables and property tests,
// the renderers and their golden files, the JSON contracts, the CLI's in-process units and the engine's
// conformance cases. Every other test file (the built CLI end to end, the emulator, the executor, loop
// mode, volume plugins, the browser, the package, the release, the real control plane's suites, which skip
// without one) is the e2e lane (`npm run test:e2e`): a new file lands there unless it is named here.
// `npm run test:all` runs both, as CI does.
export const FAST_LANE = [
  'test/engine',
  'test/render',
  'test/contract',
  'test/app/printed-fixes.test.ts',
  'test/cli/bool-flag-values.test.ts',
  'test/cli/completion-candidates.test.ts',
  'test/cli/default-namespace.test.ts',
  'test/cli/object-args.test.ts',
  'test/conformance/engine-conformance.test.ts',
  'test/conformance/exceptions.test.ts',
  'test/conformance/plugin-conformance.test.ts',
]
