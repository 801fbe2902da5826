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

/**
 * The engine's folders, bottom to top: api is the ground; the controller talks to the cluster through its
 * own interface (controller/cluster-client.ts), as the Go controller through its clientset, listers and event
 * recorder, and the simulated cluster implements it, so simulation knows the controller (reconcile drives it)
 * and the controller knows nothing of simulation; what pvctl adds on top (explain, repair, audit) is built
 * from them and never imported by them; audit offers the repairs that fix what it finds, so it sits on top.
 */
const ENGINE_FOLDERS = ['api', 'matching', 'controller', 'simulation', 'explain', 'repair', 'audit']

const at = (name) => `./src/${name}`

/** Every floor's folders against the floors above it and its siblings. */
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

/** Every engine folder against the folders above it. */
function engineZones() {
  return ENGINE_FOLDERS.slice(0, -1).map((name, i) => ({
    target: at(`engine/${name}`),
    from: ENGINE_FOLDERS.slice(i + 1).map((above) => at(`engine/${above}`)),
    message: `engine/${name} is below these in the engine (docs/design.md, "Inside the engine").`,
  }))
}

/** What a folder may not import at all, beside the stack: packages with effects, and machinery it stands apart from. */
const APART = [
  {
    target: './src/engine',
    from: ['./src'],
    except: ['./engine'],
    message: 'the engine is pure and self-contained: it imports nothing of src/ outside it.',
  },
  {
    target: './src/loop/client-go',
    from: ['./src/loop'],
    except: ['./client-go'],
    message: "client-go's machinery knows nothing of the PV loop it serves.",
  },
  {
    target: './test/engine',
    from: ['./src'],
    except: ['./engine'],
    message:
      "the engine's tests hold the engine alone (snapshots are read by test/fixtures/states.ts; use-cases are tested in test/app).",
  },
]

/** Packages a folder may not import: effects in the pure floors, oclif and the client runtime below the commands. */
const PACKAGES_APART = [
  {
    files: ['src/engine/**/*.ts'],
    patterns: ['node:*', '@kubernetes/*', '@oclif/*', 'ora', 'cli-table3', '@inquirer/*', 'yaml', 'diff'],
    why: 'the engine is pure: no I/O, no client runtime, no terminal',
  },
  {
    files: ['src/render/**/*.ts'],
    patterns: ['node:*', '@kubernetes/*', '@oclif/*', 'ora', '@inquirer/*'],
    why: 'renderers are pure',
  },
  {
    files: [
      'src/app/**/*.ts',
      'src/executor/**/*.ts',
      'src/cluster/**/*.ts',
      'src/{log,errors,redact,yaml-library}.ts',
    ],
    patterns: ['@oclif/*'],
    why: 'below the CLI nothing knows oclif',
  },
  {
    files: ['src/loop/**/*.ts', 'src/volume-plugins/**/*.ts'],
    patterns: ['@oclif/*', '@kubernetes/*'],
    why: 'loop mode and the volume plugins reach the cluster through its ports (src/cluster) and know nothing of oclif',
  },
]

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
      'import-x/no-restricted-paths': ['error', {zones: [...stackZones(), ...engineZones(), ...APART]}],
      'import-x/no-unresolved': 'error',
      // Small functions with one reason to change (blank lines and comments not counted).
      'max-lines-per-function': ['error', {max: 80, skipBlankLines: true, skipComments: true}],
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
  {
    // The port keeps Go's functions whole (updateClaimStatus, provisionClaimOperation), to read beside them.
    files: ['src/engine/controller/pv-controller.ts'],
    rules: {'max-lines-per-function': 'off'},
  },
  ...PACKAGES_APART.map(({files, patterns, why}) => ({
    files,
    rules: {'no-restricted-imports': ['error', {patterns: [{group: patterns, message: `${why} (docs/design.md).`}]}]},
  })),
  {
    files: ['test/engine/**/*.ts'],
    plugins: {'import-x': importX},
    settings: {'import-x/resolver-next': [createTypeScriptImportResolver({project: './tsconfig.test.json'})]},
    rules: {
      'import-x/no-restricted-paths': ['error', {zones: APART.filter((zone) => zone.target === './test/engine')}],
    },
  },
)
