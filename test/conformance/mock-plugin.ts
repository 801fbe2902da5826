// The Go tests' mock volume plugin (kubernetes.io/mock-volume), as README.md beside it
// describes it: it supports every volume; each capability exists unless its call list is null; call
// lists are consumed in order; an empty list makes NewDeleter / NewProvisioner / Recycle fail with
// "Mock plugin error: no <list> configured". Also the reactor errors and the mocked CSI migration.
import {isDeepStrictEqual} from 'node:util'

import type {MigrationPolicy} from '../../src/engine/controller/csi-migration.js'
import type {PersistentVolume} from '../../src/engine/api/model.js'
import type {ApiFaults, ProvisionOptions, VolumeOperations} from '../../src/engine/controller/volume-operations.js'
import {VolumePluginMgr} from '../../src/engine/controller/volume-plugins.js'

export const MOCK_PLUGIN = 'kubernetes.io/mock-volume'

type CallResult = null | {error: string}
interface ProvisionCall {
  ret: null | {error: string}
  expectedParameters: Record<string, string> | null
}

export interface PluginMock {
  recycleCalls: CallResult[] | null
  deleteCalls: CallResult[] | null
  provisionCalls: ProvisionCall[] | null
  csiMigration?: {translatorCSIName: string; migrationEnabledForAllPlugins: boolean}
}

export interface ReactorError {
  Verb: string
  Resource: string
  Error: {error: string; apiStatusReason?: string}
}

export function mockPluginMgr(mock: PluginMock): VolumePluginMgr {
  return new VolumePluginMgr([
    {
      name: MOCK_PLUGIN,
      canSupport: () => true,
      recycler: mock.recycleCalls !== null,
      deleter: mock.deleteCalls !== null,
      provisioner: mock.provisionCalls !== null,
      supportsMountOption: false,
    },
  ])
}

export function mockOperations(mock: PluginMock): VolumeOperations {
  const recycleCalls = [...(mock.recycleCalls ?? [])]
  const deleteCalls = [...(mock.deleteCalls ?? [])]
  const provisionCalls = [...(mock.provisionCalls ?? [])]
  let recycled = 0
  let deleted = 0
  let provisioned = 0
  return {
    recycle() {
      if (recycleCalls.length === 0) return 'Mock plugin error: no recycleCalls configured'
      if (recycled >= recycleCalls.length) return 'Mock plugin error: unexpected recycle call'
      const call = recycleCalls[recycled++]
      return call === null ? undefined : call.error
    },
    delete() {
      if (deleteCalls.length === 0) return {newDeleterError: 'Mock plugin error: no deleteCalls configured'}
      if (deleted >= deleteCalls.length) return {deleteError: 'Mock plugin error: unexpected delete call'}
      const call = deleteCalls[deleted++]
      return call === null ? {} : {deleteError: call.error}
    },
    provision(_plugin: string, options: ProvisionOptions) {
      if (provisionCalls.length === 0) return {newProvisionerError: 'Mock plugin error: no provisionCalls configured'}
      if (provisioned >= provisionCalls.length)
        return {provisionError: 'Mock plugin error: unexpected provisioner call'}
      const call = provisionCalls[provisioned++]
      const parameters = options.storageClass.parameters ?? null
      if (!isDeepStrictEqual(call.expectedParameters ?? {}, parameters ?? {})) {
        return {
          provisionError: `invalid provisioner call, expected options: ${JSON.stringify(call.expectedParameters)}, got: ${JSON.stringify(parameters)}`,
        }
      }
      if (call.ret !== null) return {provisionError: call.ret.error}
      const claim = options.claim
      const volume: PersistentVolume = {
        metadata: {name: options.pvName},
        spec: {
          capacity: {storage: claim.spec.resources?.requests?.storage ?? '0'},
          accessModes: claim.spec.accessModes ?? undefined,
          persistentVolumeReclaimPolicy: options.storageClass.reclaimPolicy ?? 'Delete',
          gcePersistentDisk: {pdName: ''},
          ...(claim.spec.volumeMode != null ? {volumeMode: claim.spec.volumeMode} : {}),
        },
        status: {phase: 'Available'},
      }
      return {volume}
    },
  }
}

/** Each reactor error fails the first matching call, once, in order. */
export function reactorFaults(errors: readonly ReactorError[]): ApiFaults {
  const pending = [...errors]
  return (verb, resource) => {
    const i = pending.findIndex((e) => e.Verb === verb && e.Resource === resource)
    if (i < 0) return undefined
    const [e] = pending.splice(i, 1)
    return {error: e.Error.error, ...(e.Error.apiStatusReason !== undefined ? {reason: e.Error.apiStatusReason} : {})}
  }
}

export function mockMigration(m: NonNullable<PluginMock['csiMigration']>): MigrationPolicy {
  return {
    isMigrationEnabledForPlugin: () => m.migrationEnabledForAllPlugins,
    getCSINameFromInTreeName: () => m.translatorCSIName,
  }
}
