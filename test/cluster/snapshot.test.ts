import {describe, it, before, after} from 'node:test'
import assert from 'node:assert/strict'
import {mkdtemp, mkdir, rm, writeFile, chmod} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join, dirname} from 'node:path'
import {fileURLToPath} from 'node:url'
import {Readable} from 'node:stream'
import {loadSnapshot, parseSnapshotText, type LoadedSnapshot} from '../../src/cluster/snapshot.js'
import {InputError} from '../../src/errors.js'

const FIXTURE = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'kubectl-get.yaml')

let tmp: string
before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'pvctl-snapshot-'))
})
after(async () => {
  await rm(tmp, {recursive: true, force: true})
})

let dirCounter = 0
/** Writes `files` into a fresh directory under tmp and returns its path. */
async function writeFiles(files: Record<string, string>): Promise<string> {
  const dir = join(tmp, `case-${dirCounter++}`)
  await mkdir(dir)
  for (const [name, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, name)), {recursive: true})
    await writeFile(join(dir, name), text)
  }
  return dir
}

const names = (s: LoadedSnapshot) => ({
  volumes: s.state.volumes.map((o) => o.metadata.name),
  claims: s.state.claims.map((o) => `${o.metadata.namespace}/${o.metadata.name}`),
  classes: s.state.classes.map((o) => o.metadata.name),
  pods: s.state.pods.map((o) => `${o.metadata.namespace}/${o.metadata.name}`),
  nodes: s.state.nodes.map((o) => o.metadata.name),
})
const none = {volumes: [], claims: [], classes: [], pods: [], nodes: []}

const PV = (name: string, storage = '10Gi') => `apiVersion: v1
kind: PersistentVolume
metadata:
  name: ${name}
spec:
  capacity:
    storage: ${storage}
`
const PVC = (name: string, extraSpec = '') => `apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: ${name}
  namespace: default
spec:
  resources:
    requests:
      storage: 1Gi
${extraSpec}`

describe('loadSnapshot: good input', () => {
  const rows: {
    name: string
    files: Record<string, string>
    /** What to load, relative to the case directory; '' is the directory itself. */
    path: string
    want: Partial<ReturnType<typeof names>>
    skipped?: Record<string, number>
    sources?: string[]
    check?: (s: LoadedSnapshot) => void
  }[] = [
    {
      name: 'kubectl-style List in YAML',
      path: 'snap.yaml',
      files: {
        'snap.yaml': `apiVersion: v1
kind: List
metadata:
  resourceVersion: ""
items:
- ${PV('pv1').replaceAll('\n', '\n  ')}
- ${PVC('data').replaceAll('\n', '\n  ')}
- apiVersion: storage.k8s.io/v1
  kind: StorageClass
  metadata:
    name: fast
  provisioner: example.com/csi
`,
      },
      want: {volumes: ['pv1'], claims: ['default/data'], classes: ['fast']},
      sources: ['snap.yaml'],
    },
    {
      name: 'multi-document YAML, with empty and null documents',
      path: 'snap.yaml',
      files: {'snap.yaml': `---\n${PV('pv1')}---\n---\nnull\n---\n${PV('pv2')}---\n${PVC('data')}\n...\n`},
      want: {volumes: ['pv1', 'pv2'], claims: ['default/data']},
    },
    {
      name: 'JSON List',
      path: 'snap.json',
      files: {
        'snap.json': JSON.stringify(
          {
            apiVersion: 'v1',
            kind: 'List',
            items: [
              {
                apiVersion: 'v1',
                kind: 'PersistentVolume',
                metadata: {name: 'pv1', resourceVersion: 7},
                spec: {capacity: {storage: 5}},
              },
              {apiVersion: 'v1', kind: 'Node', metadata: {name: 'n1'}},
            ],
          },
          null,
          '\t',
        ),
      },
      want: {volumes: ['pv1'], nodes: ['n1']},
      check: (s) => {
        assert.equal(s.state.volumes[0]!.metadata.resourceVersion, '7')
        assert.deepEqual(s.state.volumes[0]!.spec.capacity, {storage: '5'})
      },
    },
    {
      name: 'typed PersistentVolumeList whose items have no kind or apiVersion',
      path: 'pvs.yaml',
      files: {
        'pvs.yaml':
          'apiVersion: v1\nkind: PersistentVolumeList\nitems:\n- metadata: {name: a}\n  spec: {}\n- metadata: {name: b}\n',
      },
      want: {volumes: ['a', 'b']},
      check: (s) => {
        assert.deepEqual(s.state.volumes[0], {
          apiVersion: 'v1',
          kind: 'PersistentVolume',
          metadata: {name: 'a'},
          spec: {},
        })
        assert.deepEqual(s.state.volumes[1], {
          apiVersion: 'v1',
          kind: 'PersistentVolume',
          metadata: {name: 'b'},
          spec: {},
        })
      },
    },
    {
      name: 'typed StorageClassList without an apiVersion: items get storage.k8s.io/v1',
      path: 'sc.json',
      files: {'sc.json': '{"kind": "StorageClassList", "items": [{"metadata": {"name": "fast"}, "provisioner": "p"}]}'},
      want: {classes: ['fast']},
      check: (s) => assert.equal(s.state.classes[0]!.apiVersion, 'storage.k8s.io/v1'),
    },
    {
      name: 'a directory: *.yaml, *.yml, *.json sorted by name, not recursive, other files ignored',
      path: '',
      files: {
        'b.yml': PV('pv-b'),
        'a.json': JSON.stringify({apiVersion: 'v1', kind: 'PersistentVolume', metadata: {name: 'pv-a'}, spec: {}}),
        'c.yaml': PVC('claim-c'),
        'notes.txt': 'not: [yaml',
        'sub/d.yaml': PV('pv-d'),
      },
      want: {volumes: ['pv-a', 'pv-b'], claims: ['default/claim-c']},
      check: (s) =>
        assert.deepEqual(
          s.sources.map((p) => p.split(/[\\/]/).pop()),
          ['a.json', 'b.yml', 'c.yaml'],
        ),
    },
    {
      name: 'other kinds, and kept kinds under another apiVersion, are skipped and counted',
      path: 'snap.yaml',
      files: {
        'snap.yaml': `apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Service, metadata: {name: s1}}
- {apiVersion: v1, kind: Service, metadata: {name: s2}}
- {apiVersion: v1, kind: ConfigMap}
- {apiVersion: v1, kind: constructor}
- {apiVersion: example.com/v1, kind: PersistentVolume, metadata: {name: x}}
- {apiVersion: storage.k8s.io/v1beta1, kind: StorageClass, metadata: {name: old}}
---
apiVersion: apps/v1
kind: DeploymentList
items:
- metadata: {name: d1}
`,
      },
      want: {classes: ['old']},
      skipped: {Service: 2, ConfigMap: 1, constructor: 1, 'PersistentVolume (example.com/v1)': 1, Deployment: 1},
    },
    {
      name: 'no YAML 1.1 surprises: timestamps, yes/no and number-looking strings',
      path: 'snap.yaml',
      files: {
        'snap.yaml': `%YAML 1.1
---
apiVersion: v1
kind: PersistentVolume
metadata:
  name: pv1
  creationTimestamp: 2024-01-01T00:00:00Z
  resourceVersion: 12345678901234567890
  uid: 1e3
  labels: {version: 1.10, enabled: true, flag: yes, zip: 012}
  annotations: {a: 0x1F}
spec:
  capacity: {storage: 5, cpu: 1.50}
  replicas: 3
  ratio: 0.5
  on: true
`,
      },
      want: {volumes: ['pv1']},
      check: (s) => {
        const pv = s.state.volumes[0]!
        assert.deepEqual(pv.metadata, {
          name: 'pv1',
          creationTimestamp: '2024-01-01T00:00:00Z',
          resourceVersion: '12345678901234567890',
          uid: '1e3',
          labels: {version: '1.10', enabled: 'true', flag: 'yes', zip: '012'},
          annotations: {a: '0x1F'},
        })
        // Quantities become their text; other numbers and booleans stay what they are.
        assert.deepEqual(pv.spec, {capacity: {storage: '5', cpu: '1.50'}, replicas: 3, ratio: 0.5, on: true})
      },
    },
    {
      name: 'missing namespace on PVC/Pod becomes "default"; missing PV/PVC spec becomes {}; no status added',
      path: 'snap.yaml',
      files: {
        'snap.yaml': `apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: PersistentVolumeClaim, metadata: {name: c1}}
- {apiVersion: v1, kind: Pod, metadata: {name: p1}}
- {apiVersion: v1, kind: PersistentVolume, metadata: {name: v1}, spec: null}
`,
      },
      want: {volumes: ['v1'], claims: ['default/c1'], pods: ['default/p1']},
      check: (s) => {
        assert.deepEqual(s.state.claims[0], {
          apiVersion: 'v1',
          kind: 'PersistentVolumeClaim',
          metadata: {name: 'c1', namespace: 'default'},
          spec: {},
        })
        assert.deepEqual(s.state.pods[0], {apiVersion: 'v1', kind: 'Pod', metadata: {name: 'p1', namespace: 'default'}})
        assert.deepEqual(s.state.volumes[0], {
          apiVersion: 'v1',
          kind: 'PersistentVolume',
          metadata: {name: 'v1'},
          spec: {},
        })
      },
    },
    {
      name: 'the same name in two namespaces, or of two kinds, is not a duplicate',
      path: 'snap.yaml',
      files: {
        'snap.yaml': `${PVC('data')}---\n${PVC('data').replace('namespace: default', 'namespace: other')}---\n${PV('data')}`,
      },
      want: {volumes: ['data'], claims: ['default/data', 'other/data']},
    },
    {
      name: 'the pre-resize-capacity annotation is not validated',
      path: 'snap.yaml',
      files: {
        'snap.yaml': PV('pv1').replace(
          '  name: pv1',
          '  name: pv1\n  annotations:\n    volume.alpha.kubernetes.io/pre-resize-capacity: garbage',
        ),
      },
      want: {volumes: ['pv1']},
    },
    {
      name: 'YAML anchors and merge keys',
      path: 'snap.yaml',
      files: {
        'snap.yaml': `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: PersistentVolume
  metadata: {name: a, labels: &l {tier: 1}}
  spec: &s {capacity: {storage: 1Gi}}
- apiVersion: v1
  kind: PersistentVolume
  metadata: {name: b, labels: *l}
  spec: {<<: *s, storageClassName: x}
`,
      },
      want: {volumes: ['a', 'b']},
      check: (s) => {
        assert.deepEqual(s.state.volumes[1]!.metadata.labels, {tier: '1'})
        assert.deepEqual(s.state.volumes[1]!.spec, {capacity: {storage: '1Gi'}, storageClassName: 'x'})
      },
    },
  ]
  for (const row of rows) {
    it(row.name, async () => {
      const dir = await writeFiles(row.files)
      const got = await loadSnapshot(row.path === '' ? dir : join(dir, row.path))
      assert.deepEqual(names(got), {...none, ...row.want})
      assert.deepEqual(got.skipped, row.skipped ?? {})
      if (row.sources)
        assert.deepEqual(
          got.sources,
          row.sources.map((p) => join(dir, p)),
        )
      row.check?.(got)
    })
  }

  it('reads stdin for "-"', async () => {
    const got = await loadSnapshot('-', {stdin: Readable.from([Buffer.from(PV('pv1')), '---\n', PVC('data')])})
    assert.deepEqual(names(got), {...none, volumes: ['pv1'], claims: ['default/data']})
    assert.deepEqual(got.sources, ['<stdin>'])
  })

  it('parseSnapshotText is the pure parser', () => {
    const got = parseSnapshotText('{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"}}', 'x.json')
    assert.deepEqual(got, {
      state: {
        volumes: [],
        claims: [],
        classes: [],
        pods: [],
        nodes: [{apiVersion: 'v1', kind: 'Node', metadata: {name: 'n1'}}],
      },
      evidence: {events: [], csiDrivers: [], leases: [], volumeAttachments: []},
      skipped: {},
      sources: ['x.json'],
    })
  })

  it("keeps explain's evidence kinds beside the state (Events, CSIDrivers, Leases, VolumeAttachments); other versions are skipped", () => {
    const got = parseSnapshotText(
      `apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Event, metadata: {name: e1}, reason: Provisioning, involvedObject: {kind: PersistentVolumeClaim, name: data}}
- {apiVersion: events.k8s.io/v1, kind: Event, metadata: {name: e2, namespace: default}}
- {apiVersion: storage.k8s.io/v1, kind: CSIDriver, metadata: {name: ebs.csi.aws.com}}
- {apiVersion: coordination.k8s.io/v1, kind: Lease, metadata: {name: ebs-csi-aws-com, namespace: kube-system}}
- {apiVersion: storage.k8s.io/v1, kind: VolumeAttachment, metadata: {name: csi-1}, spec: {attacher: ebs.csi.aws.com}}
`,
      'snap.yaml',
    )
    const named = (objs: Array<Record<string, any>>) =>
      objs.map((o) => `${o.metadata.namespace ?? ''}/${o.metadata.name}`)
    assert.deepEqual(Object.fromEntries(Object.entries(got.evidence).map(([k, v]) => [k, named(v)])), {
      events: ['default/e1'],
      csiDrivers: ['/ebs.csi.aws.com'],
      leases: ['kube-system/ebs-csi-aws-com'],
      volumeAttachments: ['/csi-1'],
    })
    assert.deepEqual(got.skipped, {'Event (events.k8s.io/v1)': 1})
    assert.equal(got.state.volumes.length + got.state.claims.length, 0)
  })

  it('loads the kubectl get -o yaml fixture exactly as written', async () => {
    const got = await loadSnapshot(FIXTURE)
    assert.deepEqual(names(got), {
      volumes: ['pv-fast-10g', 'pv-slow-50g'],
      claims: ['default/data', 'apps/logs'],
      classes: ['fast'],
      pods: ['apps/logger-0'],
      nodes: ['worker-1'],
    })
    assert.deepEqual(got.skipped, {})
    assert.deepEqual(got.sources, [FIXTURE])
    const pv = got.state.volumes[0]!
    assert.equal(pv.metadata.creationTimestamp, '2024-05-02T09:14:07Z')
    assert.equal(pv.metadata.resourceVersion, '48213')
    assert.deepEqual(pv.metadata.labels, {tier: '1'})
    assert.deepEqual(pv.spec.capacity, {storage: '10Gi'})
    assert.equal(pv.spec.claimRef?.uid, got.state.claims[0]!.metadata.uid)
    assert.deepEqual(pv.status, {lastPhaseTransitionTime: '2024-05-02T09:15:30Z', phase: 'Bound'})
    assert.equal(got.state.volumes[1]!.spec.storageClassName, '')
    assert.deepEqual(got.state.claims[1]!.spec.selector, {
      matchExpressions: [{key: 'tier', operator: 'In', values: ['1', '2']}],
    })
    assert.equal(got.state.classes[0]!.allowVolumeExpansion, true)
    assert.equal(got.state.pods[0]!.spec?.priority, 0)
    assert.equal((got.state.nodes[0]!.status as {allocatable: {pods: string}}).allocatable.pods, '110')
  })
})

describe('loadSnapshot: several paths (-f repeated or comma-separated) are one cluster', () => {
  // Rows: the files, the paths given (relative to the case directory, '' the directory itself; '-' stdin),
  // and what loads, or the one-line error.
  const rows: {
    name: string
    files: Record<string, string>
    paths: string[]
    stdin?: string
    want: Partial<ReturnType<typeof names>> | string
    sources?: string[]
  }[] = [
    {
      name: 'volumes and claims from two files, in the order given',
      files: {
        'pv.yaml': PV('pv1'),
        'pvc.json': JSON.stringify({
          apiVersion: 'v1',
          kind: 'PersistentVolumeClaim',
          metadata: {name: 'data', namespace: 'default'},
          spec: {},
        }),
      },
      paths: ['pvc.json', 'pv.yaml'],
      want: {volumes: ['pv1'], claims: ['default/data']},
      sources: ['pvc.json', 'pv.yaml'],
    },
    {
      name: 'a file, a directory and stdin',
      files: {'pv.yaml': PV('pv1'), 'more/a.yaml': PV('pv2'), 'more/b.yml': PV('pv3')},
      paths: ['pv.yaml', 'more', '-'],
      stdin: PVC('data'),
      want: {volumes: ['pv1', 'pv2', 'pv3'], claims: ['default/data']},
      sources: ['pv.yaml', 'more/a.yaml', 'more/b.yml', '<stdin>'],
    },
    {
      name: 'an object in two files is a duplicate, both named',
      files: {'a.yaml': PV('pv1'), 'b.yaml': `${PV('pv2')}---\n${PV('pv1')}`},
      paths: ['a.yaml', 'b.yaml'],
      want: 'DIR/b.yaml: PersistentVolume pv1: duplicate object (document 2); first defined in DIR/a.yaml (document 1)',
    },
    {
      name: 'one file given twice',
      files: {'a.yaml': PV('pv1')},
      paths: ['a.yaml', './a.yaml'],
      want: '-f "DIR/./a.yaml": given twice (each object would be a duplicate of itself)',
    },
    {
      name: 'stdin given twice',
      files: {},
      paths: ['-', '-'],
      stdin: PV('pv1'),
      want: '-f -: standard input can be read only once',
    },
    {
      name: 'a path that is not there, after one that is',
      files: {'a.yaml': PV('pv1')},
      paths: ['a.yaml', 'b.yaml'],
      want: 'no such file or directory "DIR/b.yaml"',
    },
  ]
  for (const row of rows) {
    it(row.name, async () => {
      const dir = await writeFiles(row.files)
      // Not join(): "./a.yaml" stays as given, the way a user types it.
      const paths = row.paths.map((p) => (p === '-' ? p : `${dir}/${p}`))
      const loading = loadSnapshot(paths, {stdin: Readable.from([row.stdin ?? ''])})
      if (typeof row.want === 'string') {
        await assert.rejects(loading, {name: 'InputError', message: row.want.replaceAll('DIR', dir)})
        return
      }
      const got = await loading
      assert.deepEqual(names(got), {...none, ...row.want})
      if (row.sources)
        assert.deepEqual(
          got.sources,
          row.sources.map((p) => (p === '<stdin>' ? p : join(dir, p))),
        )
    })
  }
})

describe('loadSnapshot: bad input is an InputError naming file, object and field', () => {
  const rows: {
    name: string
    files: Record<string, string>
    path: string
    /** The message, with FILE standing for the path of the file loaded (or of `path`). */
    want: string | RegExp
    file?: string
  }[] = [
    {name: 'missing file', path: 'nope.yaml', files: {}, want: 'no such file or directory "FILE"'},
    {
      name: 'directory without snapshot files',
      path: 'd',
      files: {'d/readme.txt': 'hi'},
      want: 'no .yaml, .yml or .json files in directory "FILE"',
    },
    // An empty input is a failed `kubectl get ... |` or the wrong file, never an empty cluster in sync.
    {
      name: 'an empty file',
      path: 'empty.yaml',
      files: {'empty.yaml': '# nothing here\n'},
      want: 'FILE: no objects pvctl reads (PersistentVolume, PersistentVolumeClaim, StorageClass, Pod, Node)',
    },
    {
      name: 'an empty JSON file, with a byte-order mark',
      path: 'empty.json',
      files: {'empty.json': '\ufeff\n'},
      want: 'FILE: no objects pvctl reads (PersistentVolume, PersistentVolumeClaim, StorageClass, Pod, Node)',
    },
    {
      name: 'an empty List',
      path: 'list.json',
      files: {'list.json': '{"apiVersion": "v1", "kind": "List", "items": []}'},
      want: 'FILE: no objects pvctl reads (PersistentVolume, PersistentVolumeClaim, StorageClass, Pod, Node)',
    },
    {
      name: 'only kinds pvctl does not read',
      path: 'deploy.yaml',
      files: {
        'deploy.yaml':
          'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: api}\n',
      },
      want: 'FILE: no objects pvctl reads (PersistentVolume, PersistentVolumeClaim, StorageClass, Pod, Node); only Deployment ×2',
    },
    {
      name: 'invalid YAML, with line and column',
      path: 'snap.yaml',
      files: {'snap.yaml': 'apiVersion: v1\nkind: List\nitems:\n- a: b: c\n'},
      want: 'FILE: invalid YAML at line 4, column 6: Nested mappings are not allowed in compact mappings',
    },
    {
      name: 'duplicate YAML keys',
      path: 'snap.yaml',
      files: {'snap.yaml': 'kind: List\nkind: List\n'},
      want: 'FILE: invalid YAML at line 2, column 1: Map keys must be unique',
    },
    {
      name: 'invalid JSON, with line and column',
      path: 'snap.json',
      files: {'snap.json': '{\n  "kind": "List",\n  "items": [\n    {"kind": "Pod",}\n  ]\n}\n'},
      want: 'FILE: invalid JSON at line 4, column 20: Expected double-quoted property name',
    },
    {
      name: 'invalid JSON that V8 gives no position for',
      path: 'snap.json',
      files: {'snap.json': '{\n  "kind": "List",\n  "items": [\n    {"kind": }\n  ]\n}\n'},
      want: /^FILE: invalid JSON: Unexpected token '}'$/,
    },
    {
      name: 'a *.json file holding YAML is invalid JSON',
      path: 'snap.json',
      files: {'snap.json': 'kind: List\n'},
      want: /^FILE: invalid JSON: Unexpected token 'k'$/,
    },
    {
      name: 'a document that is not an object',
      path: 'snap.yaml',
      files: {'snap.yaml': 'hello\n'},
      want: 'FILE: document 1: expected an object, got a string "hello"',
    },
    {
      name: 'the second document is a list',
      path: 'snap.yaml',
      files: {'snap.yaml': `${PV('a')}---\n- 1\n`},
      want: 'FILE: document 2: expected an object, got a list',
    },
    {
      name: 'a List item that is not an object',
      path: 'snap.yaml',
      files: {'snap.yaml': 'kind: List\nitems:\n- 42\n'},
      want: 'FILE: items[0]: expected an object, got a number 42',
    },
    {
      name: 'items not a list',
      path: 'snap.yaml',
      files: {'snap.yaml': 'kind: List\nitems: {a: 1}\n'},
      want: 'FILE: document 1 (List): items must be a list, got an object',
    },
    {
      name: 'no kind',
      path: 'snap.yaml',
      files: {'snap.yaml': 'apiVersion: v1\nmetadata: {name: x}\n'},
      want: 'FILE: document 1: kind is required',
    },
    {
      name: 'no apiVersion on a kept kind',
      path: 'snap.yaml',
      files: {'snap.yaml': 'kind: PersistentVolume\nmetadata: {name: x}\n'},
      want: 'FILE: document 1 (PersistentVolume): apiVersion is required',
    },
    {
      name: 'no metadata.name, in a List',
      path: 'snap.yaml',
      files: {
        'snap.yaml': `kind: List\nitems:\n${[PV('a'), PV('b'), PV('c'), 'apiVersion: v1\nkind: PersistentVolume\nmetadata: {}\n'].map((t) => `- ${t.replaceAll('\n', '\n  ')}`).join('\n')}`,
      },
      want: 'FILE: items[3] (PersistentVolume): metadata.name is required',
    },
    {
      name: 'no metadata.name, in the third document',
      path: 'snap.yaml',
      files: {
        'snap.yaml': `${PV('a')}---\n${PV('b')}---\nkind: List\nitems:\n- {apiVersion: v1, kind: PersistentVolumeClaim, spec: {}}\n`,
      },
      want: 'FILE: document 3 items[0] (PersistentVolumeClaim): metadata.name is required',
    },
    {
      name: 'metadata.namespace not a string',
      path: 'snap.yaml',
      files: {'snap.yaml': 'apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: [a]}\n'},
      want: 'FILE: document 1 (Pod): metadata.namespace must be a string, got a list',
    },
    {
      name: 'the same PV twice in one file',
      path: 'snap.yaml',
      files: {'snap.yaml': `${PV('pv1')}---\n${PV('pv1')}`},
      want: 'FILE: PersistentVolume pv1: duplicate object (document 2); first defined in FILE (document 1)',
    },
    {
      name: 'the same PVC in two files of a directory names both',
      path: '',
      files: {'a.yaml': PVC('data'), 'b.yaml': `kind: List\nitems:\n- ${PVC('data').replaceAll('\n', '\n  ')}`},
      want: /^\S+[\\/]b\.yaml: PersistentVolumeClaim default\/data: duplicate object \(items\[0\]\); first defined in \S+[\\/]a\.yaml \(document 1\)$/,
    },
    {
      name: 'invalid PVC request',
      path: 'snapshot.yaml',
      files: {'snapshot.yaml': PVC('data').replace('storage: 1Gi', 'storage: 10Gx')},
      want: 'FILE: PersistentVolumeClaim default/data: spec.resources.requests.storage: invalid quantity "10Gx"',
    },
    {
      name: 'invalid PVC limit',
      path: 'snap.yaml',
      files: {'snap.yaml': PVC('data', '    limits:\n      storage: lots\n')},
      want: 'FILE: PersistentVolumeClaim default/data: spec.resources.limits.storage: invalid quantity "lots"',
    },
    {
      name: 'invalid PVC status.capacity',
      path: 'snap.yaml',
      files: {'snap.yaml': `${PVC('data')}status:\n  capacity:\n    storage: 1 Gi\n`},
      want: 'FILE: PersistentVolumeClaim default/data: status.capacity.storage: invalid quantity "1 Gi"',
    },
    {
      name: 'invalid PV capacity, a resource name with dots',
      path: 'snap.yaml',
      files: {'snap.yaml': PV('pv1').replace('storage: 10Gi', 'example.com/foo: 1.2.3')},
      want: 'FILE: PersistentVolume pv1: spec.capacity["example.com/foo"]: invalid quantity "1.2.3"',
    },
    {
      name: 'a null quantity',
      path: 'snap.yaml',
      files: {'snap.yaml': PV('pv1').replace('storage: 10Gi', 'storage: null')},
      want: 'FILE: PersistentVolume pv1: spec.capacity.storage: must be a quantity, got null',
    },
    {
      name: 'a YAML hex number is not a quantity',
      path: 'snap.yaml',
      files: {'snap.yaml': PV('pv1').replace('storage: 10Gi', 'storage: 0x10')},
      want: 'FILE: PersistentVolume pv1: spec.capacity.storage: invalid quantity "0x10"',
    },
    {
      name: 'capacity not a map',
      path: 'snap.yaml',
      files: {'snap.yaml': 'apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: pv1}\nspec: {capacity: 10Gi}\n'},
      want: 'FILE: PersistentVolume pv1: spec.capacity: must be a map of quantities, got a string "10Gi"',
    },
    {
      name: 'spec not an object',
      path: 'snap.yaml',
      files: {
        'snap.yaml': 'apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: c, namespace: ns}\nspec: [1]\n',
      },
      want: 'FILE: PersistentVolumeClaim ns/c: spec: must be an object, got a list',
    },
    {
      name: 'invalid selector operator',
      path: 'snap.yaml',
      files: {
        'snap.yaml': PVC(
          'data',
          '  selector:\n    matchExpressions:\n    - {key: tier, operator: Near, values: ["1"]}\n',
        ),
      },
      want: /^FILE: PersistentVolumeClaim default\/data: spec\.selector\.matchExpressions\[0\]: key "tier": .*Near.*$/,
    },
    {
      name: 'an invalid matchLabels value',
      path: 'snap.yaml',
      files: {'snap.yaml': PVC('data', '  selector:\n    matchLabels: {tier: "a b"}\n')},
      want: /^FILE: PersistentVolumeClaim default\/data: spec\.selector\.matchLabels: key "tier": .+$/,
    },
    {
      name: 'a selector that is not an object',
      path: 'snap.yaml',
      files: {'snap.yaml': PVC('data', '  selector: tier=1\n')},
      want: 'FILE: PersistentVolumeClaim default/data: spec.selector: must be an object, got string',
    },
    {
      name: 'a label value that is not a string',
      path: 'snap.yaml',
      files: {
        'snap.yaml': 'apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n  labels:\n    app.kubernetes.io/name: null\n',
      },
      want: 'FILE: Node n1: metadata.labels["app.kubernetes.io/name"]: must be a string, got null',
    },
    {
      name: "a pod's container statuses that are not a list of objects",
      path: 'snap.yaml',
      files: {
        'snap.yaml':
          'apiVersion: v1\nkind: Pod\nmetadata: {name: web-0, namespace: app}\nstatus:\n  initContainerStatuses: running\n',
      },
      want: 'FILE: Pod app/web-0: status.initContainerStatuses: must be a list of objects, got a string "running"',
    },
    {
      name: 'a resourceVersion that is not a string',
      path: 'snap.json',
      files: {
        'snap.json': '{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1", "resourceVersion": {"a": 1}}}',
      },
      want: 'FILE: Node n1: metadata.resourceVersion: must be a string, got an object',
    },
  ]
  for (const row of rows) {
    it(row.name, async () => {
      const dir = await writeFiles(row.files)
      const path = row.path === '' ? dir : join(dir, row.path)
      await assert.rejects(loadSnapshot(path), (err: unknown) => {
        assert.ok(err instanceof InputError, `not an InputError: ${String(err)}`)
        assert.equal(err.exitCode, 2)
        assert.ok(!err.message.includes('\n'), `not one line: ${JSON.stringify(err.message)}`)
        if (typeof row.want === 'string') assert.equal(err.message, row.want.replaceAll('FILE', path))
        else
          assert.match(
            err.message,
            new RegExp(row.want.source.replaceAll('FILE', path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))),
          )
        return true
      })
    })
  }

  it('a stdin error names <stdin>', async () => {
    await assert.rejects(loadSnapshot('-', {stdin: Readable.from(['kind: List\nitems: [1]\n'])}), {
      name: 'InputError',
      message: '<stdin>: items[0]: expected an object, got a number 1',
    })
  })

  const unreadableSkip =
    process.getuid?.() === 0
      ? 'running as root, whom file permissions do not stop'
      : process.platform === 'win32'
        ? 'no POSIX permissions on Windows'
        : false
  it('an unreadable file', {skip: unreadableSkip}, async () => {
    const dir = await writeFiles({'snap.yaml': PV('pv1')})
    const file = join(dir, 'snap.yaml')
    await chmod(file, 0o000)
    await assert.rejects(loadSnapshot(file), {name: 'InputError', message: `cannot read "${file}": permission denied`})
  })
})
