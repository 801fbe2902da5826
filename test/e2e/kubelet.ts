// The emulator runs no kubelet: this plays one for the plugin pods pvctl starts (recycler-for-*,
// deleter-for-*), ending each in the given phase.
import type {Emulator} from '../emulator/emulator.js'

export function kubelet(
  api: Emulator,
  phase: 'Succeeded' | 'Failed',
  seen: string[] = [],
  onPod?: (pod: unknown) => void,
): () => void {
  const timer = setInterval(() => {
    for (const pod of api.list('pods') as Array<{metadata: {name: string}; status?: {phase?: string}}>) {
      if (!/^(recycler-for-|deleter-for-)/.test(pod.metadata.name) || pod.status?.phase === phase) continue
      if (!seen.includes(pod.metadata.name)) {
        seen.push(pod.metadata.name)
        onPod?.(structuredClone(pod))
      }
      api.update({
        ...pod,
        status: {phase, ...(phase === 'Failed' ? {message: 'scrub found files it could not delete'} : {})},
      } as never)
    }
  }, 50)
  return () => clearInterval(timer)
}
