// The emulator runs no kubelet: this plays one for the plugin pods pvctl starts (recycler-for-*,
// deleter-for-*), ending each in the given phase.
import type {Emulator} from '../emulator/emulator.js'

export function kubelet(api: Emulator, phase: 'Succeeded' | 'Failed', seen: string[] = []): () => void {
  const timer = setInterval(() => {
    for (const pod of api.list('pods', 'default') as Array<{metadata: {name: string}; status?: {phase?: string}}>) {
      if (!/^(recycler-for-|deleter-for-)/.test(pod.metadata.name) || pod.status?.phase === phase) continue
      if (!seen.includes(pod.metadata.name)) seen.push(pod.metadata.name)
      api.update({...pod, status: {phase, ...(phase === 'Failed' ? {message: 'scrub found files it could not delete'} : {})}} as never)
    }
  }, 50)
  return () => clearInterval(timer)
}
