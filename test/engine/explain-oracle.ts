// claim(), every volume judged and sorted, as the oracle of the cheaper answers an Explainer gives of a
// claim (claimBrief, claimFacts): each claim of a state is explained by it and checked against it.
import {clusterJson, generateCluster} from '../../bench/generate-cluster.js'
import {snapshotTextState} from '../fixtures/states.js'
import {Explainer, type ExplainOptions} from '../../src/engine/explain/explainer.js'
import type {ClaimExplanation} from '../../src/engine/explain/model.js'
import type {ClusterState} from '../../src/engine/api/model.js'

/**
 * The claims of the state whose `check` against claim() throws, with the first lines of what it said, and
 * the verdicts seen. The oracle: a fresh Explainer per claim, or one shared by all of them.
 */
export function claimsAgainstOracle(
  state: ClusterState,
  opts: ExplainOptions,
  oracle: 'fresh' | 'shared',
  check: (full: ClaimExplanation, namespace: string, name: string) => void,
): {problems: string[]; verdicts: Set<string>} {
  const shared = new Explainer(state, opts)
  const problems: string[] = []
  const verdicts = new Set<string>()
  for (const c of state.claims) {
    const ns = c.metadata.namespace ?? ''
    const name = c.metadata.name ?? ''
    const full = (oracle === 'fresh' ? new Explainer(state, opts) : shared).claim(ns, name)!
    verdicts.add(full.verdict)
    try {
      check(full, ns, name)
    } catch (err) {
      problems.push(`${ns}/${name} (${full.verdict}): ${(err as Error).message.split('\n').slice(0, 12).join('\n')}`)
    }
  }
  return {problems, verdicts}
}

/** The benchmark's generated cluster of that size and seed, as a snapshot of it loads. */
export function generatedState(volumes: number, seed: number): ClusterState {
  return snapshotTextState(clusterJson(generateCluster(volumes, seed)), `generated-${volumes}-${seed}`)
}
