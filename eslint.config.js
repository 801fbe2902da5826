// The linter holds the stack of docs/design.md ("Layout"): each floor imports only the floors below it,
// and the rules of typescript-eslint's strict type-checked set hold the code itself. Cycles, and what the
// engine may not touch at all (clocks, randomness, I/O), are checked by test/engine/boundaries.test.ts.
import importX from 'eslint-plugin-import-x'
import {createTypeScriptImportResolver} from 'eslint-import-resolver-typescript'
import tseslint from 'typescript-eslint'

/**
 * The floors of src/, top to bottom. A floor may import any floor below it, never one above it; the
 * folders of one floor (a list) do not import each other. The shared modules are src's top-level files: the
 * logger, and below it the errors, redaction and the YAML library.
 */
const FLOORS = [
  ['command-index.ts'],
  ['commands', 'hooks'],
  ['cli'],
  ['app'],
  ['loop'],
  ['executor'],
  ['volume-plugins'],
  ['cluster', 'render'],
  ['log.ts'],
  ['errors.ts', 'redact.ts', 'yaml-library.ts'],
  ['engine'],
]

const at = (name) => `./src/${name}`

/** no-restricted-paths zones: every floor's folders against the floors above it and its siblings. */
function stackZones() {
  return FLOORS.flatMap((floor, i) =>
    floor
      .map((name) => ({
        target: at(name),
        from: [...FLOORS.slice(0, i).flat(), ...floor.filter((sibling) => sibling !== name)].map(at),
        message: `src/${name} is below these in the stack (docs/design.md, "Layout").`,
      }))
      .filter((zone) => zone.from.length > 0),
  )
}

/** node:test's test() and describe() return promises the runner itself waits for. */
const NODE_TEST_CALLS = {
  from: 'package',
  package: 'node:test',
  name: ['test', 'it', 'describe', 'suite', 'before', 'after', 'beforeEach', 'afterEach'],
}

export default tseslint.config(
  {ignores: ['dist/**', 'node_modules/**', 'release/**']},
  {
    files: ['src/**/*.ts'],
    extends: [tseslint.configs.strictTypeChecked],
    languageOptions: {parserOptions: {projectService: true, tsconfigRootDir: import.meta.dirname}},
    plugins: {'import-x': importX},
    settings: {'import-x/resolver-next': [createTypeScriptImportResolver({project: './tsconfig.json'})]},
    rules: {
      'import-x/no-restricted-paths': ['error', {zones: stackZones()}],
      'import-x/no-unresolved': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', {considerDefaultExhaustiveForUnions: true}],
      // Counts and sizes are written into messages all the time; objects and unknowns still may not be.
      '@typescript-eslint/restrict-template-expressions': ['error', {allowNumber: true}],
      // A destructured field left out on purpose is named with a leading underscore.
      '@typescript-eslint/no-unused-vars': [
        'error',
        {ignoreRestSiblings: true, varsIgnorePattern: '^_', argsIgnorePattern: '^_'},
      ],
      // `() => done()` and `return done()` in a function that returns nothing read as what they are.
      '@typescript-eslint/no-confusing-void-expression': [
        'error',
        {ignoreArrowShorthand: true, ignoreVoidReturningFunctions: true},
      ],
    },
  },
  {
    // Tests, benchmarks and scripts poke at untyped JSON on purpose; what they may not do is lose a promise.
    files: ['test/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: {project: './tsconfig.test.json', tsconfigRootDir: import.meta.dirname},
    },
    plugins: {'@typescript-eslint': tseslint.plugin},
    rules: {
      '@typescript-eslint/no-floating-promises': ['error', {allowForKnownSafeCalls: [NODE_TEST_CALLS]}],
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
    },
  },
)
