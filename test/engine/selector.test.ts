// Table tests of metav1.LabelSelectorAsSelector + labels.Selector.Matches as ported. Error texts are
// compared in full where Kubernetes defines them, since snapshot validation shows them to users.
import assert from 'node:assert/strict'
import {describe, test} from 'node:test'

import type {LabelSelector} from '../../src/engine/api/model.js'
import {
  compileLabelSelector,
  describeSelectorMismatch,
  SelectorError,
  type Labels,
} from '../../src/engine/api/selector.js'

const QNAME_REGEX_ERR =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character " +
  "(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
const LABEL_VALUE_REGEX_ERR =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end " +
  "with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is " +
  "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
const SUBDOMAIN_REGEX_ERR =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and " +
  "end with an alphanumeric character (e.g. 'example.com', regex used for validation is " +
  "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"

const expr = (key: string, operator: string, values?: string[] | null): LabelSelector => ({
  matchExpressions: [values === undefined ? {key, operator} : {key, operator, values}],
})

describe('matches', () => {
  const rows: {name: string; selector: LabelSelector | null | undefined; labels: Labels; want: boolean}[] = [
    // nil vs empty: the one rule that decides whether anything binds.
    {name: 'null selector matches nothing, even no labels', selector: null, labels: {}, want: false},
    {name: 'null selector matches nothing', selector: null, labels: {tier: 'gold'}, want: false},
    {name: 'undefined selector is nil too', selector: undefined, labels: {tier: 'gold'}, want: false},
    {name: 'empty selector matches everything', selector: {}, labels: {tier: 'gold'}, want: true},
    {name: 'empty selector matches unlabelled', selector: {}, labels: null, want: true},
    {name: 'empty lists are empty', selector: {matchLabels: {}, matchExpressions: []}, labels: {}, want: true},
    {name: 'null lists are empty', selector: {matchLabels: null, matchExpressions: null}, labels: {}, want: true},
    // matchLabels (Equals)
    {name: 'matchLabels equal', selector: {matchLabels: {tier: 'gold'}}, labels: {tier: 'gold'}, want: true},
    {
      name: 'matchLabels with extra labels',
      selector: {matchLabels: {tier: 'gold'}},
      labels: {tier: 'gold', zone: 'a'},
      want: true,
    },
    {
      name: 'matchLabels different value',
      selector: {matchLabels: {tier: 'gold'}},
      labels: {tier: 'silver'},
      want: false,
    },
    {name: 'matchLabels key absent', selector: {matchLabels: {tier: 'gold'}}, labels: {}, want: false},
    {name: 'matchLabels, labels null', selector: {matchLabels: {tier: 'gold'}}, labels: null, want: false},
    {name: 'matchLabels empty value present', selector: {matchLabels: {tier: ''}}, labels: {tier: ''}, want: true},
    {name: 'matchLabels empty value absent', selector: {matchLabels: {tier: ''}}, labels: {}, want: false},
    {
      name: 'matchLabels all ANDed',
      selector: {matchLabels: {tier: 'gold', zone: 'a'}},
      labels: {tier: 'gold'},
      want: false,
    },
    // In
    {name: 'In, value in set', selector: expr('tier', 'In', ['gold', 'silver']), labels: {tier: 'silver'}, want: true},
    {
      name: 'In, value not in set',
      selector: expr('tier', 'In', ['gold', 'silver']),
      labels: {tier: 'bronze'},
      want: false,
    },
    {name: 'In, key absent', selector: expr('tier', 'In', ['gold']), labels: {zone: 'a'}, want: false},
    {name: 'In, empty string value', selector: expr('tier', 'In', ['']), labels: {tier: ''}, want: true},
    // NotIn
    {name: 'NotIn, key absent matches', selector: expr('tier', 'NotIn', ['gold']), labels: {}, want: true},
    {name: 'NotIn, labels null matches', selector: expr('tier', 'NotIn', ['gold']), labels: null, want: true},
    {name: 'NotIn, value outside set', selector: expr('tier', 'NotIn', ['gold']), labels: {tier: 'silver'}, want: true},
    {
      name: 'NotIn, value in set',
      selector: expr('tier', 'NotIn', ['gold', 'silver']),
      labels: {tier: 'gold'},
      want: false,
    },
    // Exists / DoesNotExist
    {name: 'Exists, present', selector: expr('tier', 'Exists'), labels: {tier: 'x'}, want: true},
    {name: 'Exists, present with empty value', selector: expr('tier', 'Exists'), labels: {tier: ''}, want: true},
    {name: 'Exists, absent', selector: expr('tier', 'Exists'), labels: {}, want: false},
    {name: 'Exists, values null is no values', selector: expr('tier', 'Exists', null), labels: {tier: 'x'}, want: true},
    {name: 'Exists, values [] is no values', selector: expr('tier', 'Exists', []), labels: {tier: 'x'}, want: true},
    {name: 'DoesNotExist, absent', selector: expr('tier', 'DoesNotExist'), labels: {}, want: true},
    {name: 'DoesNotExist, labels null', selector: expr('tier', 'DoesNotExist'), labels: undefined, want: true},
    {name: 'DoesNotExist, present', selector: expr('tier', 'DoesNotExist'), labels: {tier: ''}, want: false},
    // Inherited properties are not labels.
    {name: 'Exists does not find Object.prototype', selector: expr('constructor', 'Exists'), labels: {}, want: false},
    {name: 'DoesNotExist ignores Object.prototype', selector: expr('toString', 'DoesNotExist'), labels: {}, want: true},
    // Everything ANDed
    {
      name: 'matchLabels and expressions all hold',
      selector: {
        matchLabels: {tier: 'gold'},
        matchExpressions: [
          {key: 'zone', operator: 'In', values: ['a', 'b']},
          {key: 'legacy', operator: 'DoesNotExist'},
        ],
      },
      labels: {tier: 'gold', zone: 'b'},
      want: true,
    },
    {
      name: 'one failing expression fails the selector',
      selector: {
        matchLabels: {tier: 'gold'},
        matchExpressions: [
          {key: 'zone', operator: 'In', values: ['a', 'b']},
          {key: 'legacy', operator: 'DoesNotExist'},
        ],
      },
      labels: {tier: 'gold', zone: 'b', legacy: 'true'},
      want: false,
    },
    {
      name: 'two requirements on one key',
      selector: {
        matchExpressions: [
          {key: 'tier', operator: 'Exists'},
          {key: 'tier', operator: 'NotIn', values: ['bronze']},
        ],
      },
      labels: {tier: 'gold'},
      want: true,
    },
  ]
  for (const row of rows) {
    test(row.name, () => {
      assert.equal(compileLabelSelector(row.selector).matches(row.labels), row.want)
    })
  }
})

describe('compiled shape', () => {
  test('kinds', () => {
    assert.equal(compileLabelSelector(null).kind, 'nothing')
    assert.equal(compileLabelSelector({}).kind, 'everything')
    assert.equal(compileLabelSelector({matchLabels: {a: 'b'}}).kind, 'requirements')
  })

  const rows: {selector: LabelSelector; string: string}[] = [
    {selector: {matchLabels: {zone: 'a', tier: 'gold'}}, string: 'tier=gold,zone=a'},
    {selector: expr('tier', 'In', ['silver', 'gold']), string: 'tier in (gold,silver)'},
    {selector: expr('tier', 'NotIn', ['gold']), string: 'tier notin (gold)'},
    {
      selector: {
        matchExpressions: [
          {key: 'z', operator: 'Exists'},
          {key: 'a', operator: 'DoesNotExist'},
        ],
      },
      string: '!a,z',
    },
    {selector: {}, string: ''},
  ]
  for (const row of rows) {
    test(`toString ${row.string || '(empty)'}`, () => {
      assert.equal(compileLabelSelector(row.selector).toString(), row.string)
    })
  }
})

describe('invalid selectors', () => {
  const rows: {name: string; selector: LabelSelector; message: string}[] = [
    {
      name: 'unknown operator',
      selector: expr('tier', 'Foo', ['a']),
      message: 'matchExpressions[0] (key "tier"): "Foo" is not a valid label selector operator',
    },
    {
      name: 'operators are case-sensitive',
      selector: expr('tier', 'in', ['a']),
      message: 'matchExpressions[0] (key "tier"): "in" is not a valid label selector operator',
    },
    {
      name: 'missing operator',
      selector: {matchExpressions: [{key: 'tier'} as never]},
      message: 'matchExpressions[0] (key "tier"): "" is not a valid label selector operator',
    },
    {
      name: 'In without values',
      selector: expr('tier', 'In', []),
      message:
        "matchExpressions[0] (key \"tier\"): values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty",
    },
    {
      name: 'NotIn with values null',
      selector: expr('tier', 'NotIn', null),
      message:
        "matchExpressions[0] (key \"tier\"): values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty",
    },
    {
      name: 'In with values absent',
      selector: expr('tier', 'In'),
      message:
        "matchExpressions[0] (key \"tier\"): values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty",
    },
    {
      name: 'Exists with values',
      selector: expr('tier', 'Exists', ['gold']),
      message:
        'matchExpressions[0] (key "tier"): values: Invalid value: []string{"gold"}: values set must be empty for exists and does not exist',
    },
    {
      name: 'DoesNotExist with values',
      selector: expr('tier', 'DoesNotExist', ['a', 'b']),
      message:
        'matchExpressions[0] (key "tier"): values: Invalid value: []string{"a", "b"}: values set must be empty for exists and does not exist',
    },
    {
      name: 'the index names the expression',
      selector: {
        matchExpressions: [
          {key: 'ok', operator: 'Exists'},
          {key: 'tier', operator: 'Bogus'},
        ],
      },
      message: 'matchExpressions[1] (key "tier"): "Bogus" is not a valid label selector operator',
    },
    {
      name: 'key with a space',
      selector: expr('bad key', 'Exists'),
      message: `matchExpressions[0] (key "bad key"): key: Invalid value: "bad key": name part ${QNAME_REGEX_ERR}`,
    },
    {
      name: 'empty key',
      selector: expr('', 'Exists'),
      message: `matchExpressions[0] (key ""): key: Invalid value: "": name part must be non-empty; name part ${QNAME_REGEX_ERR}`,
    },
    {
      name: 'key too long',
      selector: expr('a'.repeat(64), 'Exists'),
      message: `matchExpressions[0] (key "${'a'.repeat(64)}"): key: Invalid value: "${'a'.repeat(64)}": name part must be no more than 63 characters`,
    },
    {
      name: 'two slashes in key',
      selector: expr('a/b/c', 'Exists'),
      message:
        `matchExpressions[0] (key "a/b/c"): key: Invalid value: "a/b/c": a qualified name ${QNAME_REGEX_ERR}` +
        " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    },
    {
      name: 'empty prefix',
      selector: expr('/tier', 'Exists'),
      message: 'matchExpressions[0] (key "/tier"): key: Invalid value: "/tier": prefix part must be non-empty',
    },
    {
      name: 'upper-case prefix',
      selector: expr('Example.com/tier', 'Exists'),
      message: `matchExpressions[0] (key "Example.com/tier"): key: Invalid value: "Example.com/tier": prefix part ${SUBDOMAIN_REGEX_ERR}`,
    },
    {
      name: 'invalid matchLabels key',
      selector: {matchLabels: {'-tier': 'gold'}},
      message: `matchLabels (key "-tier"): key: Invalid value: "-tier": name part ${QNAME_REGEX_ERR}`,
    },
    {
      name: 'invalid matchLabels value',
      selector: {matchLabels: {tier: 'gold!'}},
      message: `matchLabels (key "tier"): values[0][tier]: Invalid value: "gold!": ${LABEL_VALUE_REGEX_ERR}`,
    },
    {
      name: 'label value too long',
      selector: {matchLabels: {tier: 'g'.repeat(64)}},
      message: `matchLabels (key "tier"): values[0][tier]: Invalid value: "${'g'.repeat(64)}": must be no more than 63 characters`,
    },
    {
      name: 'invalid In value, by index',
      selector: expr('tier', 'In', ['gold', 'not valid']),
      message: `matchExpressions[0] (key "tier"): values[1][tier]: Invalid value: "not valid": ${LABEL_VALUE_REGEX_ERR}`,
    },
    {
      name: 'several errors aggregate in brackets',
      selector: expr('bad key', 'In', []),
      message:
        `matchExpressions[0] (key "bad key"): [key: Invalid value: "bad key": name part ${QNAME_REGEX_ERR}, ` +
        "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty]",
    },
    {
      name: 'first invalid matchLabels key in sorted order',
      selector: {matchLabels: {zz: 'bad value', aa: 'bad value'}},
      message: `matchLabels (key "aa"): values[0][aa]: Invalid value: "bad value": ${LABEL_VALUE_REGEX_ERR}`,
    },
    // Wrong JSON shapes, which Kubernetes refuses while decoding.
    {
      name: 'matchExpressions not a list',
      selector: {matchExpressions: 'tier' as never},
      message: 'matchExpressions: must be a list, got string',
    },
    {
      name: 'matchLabels a list',
      selector: {matchLabels: ['a'] as never},
      message: 'matchLabels: must be a map of strings, got a list',
    },
    {
      name: 'expression not an object',
      selector: {matchExpressions: [null as never]},
      message: 'matchExpressions[0]: must be an object, got null',
    },
    {
      name: 'values not strings',
      selector: {matchExpressions: [{key: 'tier', operator: 'In', values: [1] as never}]},
      message: 'matchExpressions[0] (key "tier"): values must be a list of strings, got [1]',
    },
    {
      name: 'matchLabels value not a string',
      selector: {matchLabels: {tier: 3 as never}},
      message: 'matchLabels (key "tier"): value must be a string, got number',
    },
  ]
  for (const row of rows) {
    test(row.name, () => {
      assert.throws(
        () => compileLabelSelector(row.selector),
        (err: unknown) => {
          assert.ok(err instanceof SelectorError)
          assert.equal(err.message, row.message)
          assert.ok(!err.message.includes('\n'), 'one line')
          return true
        },
      )
      // describeSelectorMismatch compiles too, and refuses the same selectors.
      assert.throws(() => describeSelectorMismatch(row.selector, {}), SelectorError)
    })
  }

  test('valid edge keys and values are accepted', () => {
    const selector: LabelSelector = {
      matchLabels: {'example.com/tier': '', [`a.b-c/${'n'.repeat(63)}`]: 'v'.repeat(63), 'A_b.c-9': 'My_Value.1'},
    }
    assert.doesNotThrow(() => compileLabelSelector(selector))
  })

  test('keys and values are checked each time they are used, not only the first time', () => {
    // Valid keys and values are remembered once checked: an invalid one must never be, and a valid one
    // must not make an invalid neighbour pass.
    const rows: Array<{selector: LabelSelector; valid: boolean}> = [
      {selector: {matchLabels: {tier: 'gold'}}, valid: true},
      {selector: {matchLabels: {'tier/x/y': 'gold'}}, valid: false},
      {selector: {matchLabels: {tier: 'gold!'}}, valid: false},
      {selector: {matchLabels: {tier: 'gold'}}, valid: true},
      {selector: {matchLabels: {'tier/x/y': 'gold'}}, valid: false},
      {selector: {matchExpressions: [{key: 'tier', operator: 'In', values: ['gold', 'gold!']}]}, valid: false},
    ]
    for (const row of rows) {
      if (row.valid) assert.doesNotThrow(() => compileLabelSelector(row.selector), JSON.stringify(row.selector))
      else assert.throws(() => compileLabelSelector(row.selector), SelectorError, JSON.stringify(row.selector))
    }
  })
})

describe('describeSelectorMismatch', () => {
  const rows: {name: string; selector: LabelSelector | null; labels: Labels; want: string[]}[] = [
    {name: 'matched', selector: {matchLabels: {tier: 'gold'}}, labels: {tier: 'gold'}, want: []},
    {name: 'empty selector', selector: {}, labels: null, want: []},
    {name: 'null selector', selector: null, labels: {tier: 'gold'}, want: ['selector is null, which matches nothing']},
    {
      name: 'matchLabels key absent',
      selector: {matchLabels: {tier: 'gold'}},
      labels: {},
      want: ['labels lack tier=gold'],
    },
    {
      name: 'matchLabels value differs',
      selector: {matchLabels: {tier: 'gold'}},
      labels: {tier: 'silver'},
      want: ['label tier=silver, want tier=gold'],
    },
    {
      name: 'In value differs',
      selector: expr('tier', 'In', ['gold']),
      labels: {tier: 'silver'},
      want: ['label tier=silver not in (gold)'],
    },
    {
      name: 'In key absent',
      selector: expr('tier', 'In', ['silver', 'gold']),
      labels: {},
      want: ['labels lack tier, want tier in (gold,silver)'],
    },
    {
      name: 'NotIn value excluded',
      selector: expr('tier', 'NotIn', ['silver', 'gold']),
      labels: {tier: 'gold'},
      want: ['label tier=gold in (gold,silver), must not be'],
    },
    {name: 'Exists absent', selector: expr('tier', 'Exists'), labels: null, want: ['labels lack tier, must exist']},
    {
      name: 'DoesNotExist present',
      selector: expr('tier', 'DoesNotExist'),
      labels: {tier: 'silver'},
      want: ['label tier present, must not exist'],
    },
    {
      name: 'every unmet requirement, in key order',
      selector: {
        matchLabels: {zone: 'a'},
        matchExpressions: [
          {key: 'tier', operator: 'In', values: ['gold']},
          {key: 'legacy', operator: 'DoesNotExist'},
          {key: 'disk', operator: 'Exists'},
        ],
      },
      labels: {zone: 'b', tier: 'gold', legacy: 'yes'},
      want: ['labels lack disk, must exist', 'label legacy present, must not exist', 'label zone=b, want zone=a'],
    },
  ]
  for (const row of rows) {
    test(row.name, () => {
      assert.deepEqual(describeSelectorMismatch(row.selector, row.labels), row.want)
      // The description and the verdict agree.
      assert.equal(row.want.length === 0, compileLabelSelector(row.selector).matches(row.labels))
    })
  }
})
