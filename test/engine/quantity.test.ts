// Table tests of the resource.Quantity port. Rows marked "k8s" come from
// k8s.io/apimachinery/pkg/api/resource/quantity_test.go, so a failure there means a divergence from
// Kubernetes, not just from this file's author.
import assert from 'node:assert/strict'
import {describe, test} from 'node:test'

import {
  compareQuantities,
  isValidQuantity,
  MAX_DECIMAL_EXPONENT,
  MAX_QUANTITY_LENGTH,
  parseQuantity,
  QuantityError,
  type QuantityErrorReason,
  type QuantityFormat,
  quantityValue,
} from '../../src/engine/api/quantity.js'

const FORMAT_MESSAGE = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
const MAX_INT64 = 9223372036854775807n

function cmp(a: string, b: string): number {
  return compareQuantities(parseQuantity(a), parseQuantity(b))
}

describe('parseQuantity: exact value in nanos and format', () => {
  const rows: {input: string; nanos: bigint; format: QuantityFormat; note?: string}[] = [
    {input: '0', nanos: 0n, format: 'DecimalSI'},
    {input: '1', nanos: 1_000_000_000n, format: 'DecimalSI'},
    {input: '5n', nanos: 5n, format: 'DecimalSI'},
    {input: '4u', nanos: 4_000n, format: 'DecimalSI'},
    {input: '3m', nanos: 3_000_000n, format: 'DecimalSI'},
    {input: '8k', nanos: 8_000n * 10n ** 9n, format: 'DecimalSI'},
    {input: '7M', nanos: 7n * 10n ** 15n, format: 'DecimalSI'},
    {input: '6G', nanos: 6n * 10n ** 18n, format: 'DecimalSI'},
    {input: '5T', nanos: 5n * 10n ** 21n, format: 'DecimalSI'},
    {input: '2P', nanos: 2n * 10n ** 24n, format: 'DecimalSI'},
    {input: '1E', nanos: 10n ** 27n, format: 'DecimalSI'},
    {input: '1Ki', nanos: 1024n * 10n ** 9n, format: 'BinarySI'},
    {input: '7Mi', nanos: 7n * 2n ** 20n * 10n ** 9n, format: 'BinarySI'},
    {input: '6Gi', nanos: 6n * 2n ** 30n * 10n ** 9n, format: 'BinarySI'},
    {input: '5Ti', nanos: 5n * 2n ** 40n * 10n ** 9n, format: 'BinarySI'},
    {input: '4Pi', nanos: 4n * 2n ** 50n * 10n ** 9n, format: 'BinarySI'},
    {input: '3Ei', nanos: 3n * 2n ** 60n * 10n ** 9n, format: 'BinarySI'},
    {input: '1e3', nanos: 10n ** 12n, format: 'DecimalExponent'},
    {input: '1E-3', nanos: 10n ** 6n, format: 'DecimalExponent'},
    {input: '1.3E+6', nanos: 13n * 10n ** 14n, format: 'DecimalExponent'},
    {input: '-1.025Ti', nanos: -(2n ** 40n * 1025n * 10n ** 6n), format: 'BinarySI', note: 'fractional binary, exact'},
    {input: '100.035k', nanos: 100035n * 10n ** 9n, format: 'DecimalSI'},
    {input: '100.035Ki', nanos: 10243584n * 10n ** 7n, format: 'BinarySI', note: 'k8s: 102435.84'},
    {input: '0.5Mi', nanos: 524288n * 10n ** 9n, format: 'BinarySI'},
    {input: '+1Gi', nanos: 2n ** 30n * 10n ** 9n, format: 'BinarySI', note: 'a leading + is accepted'},
    {input: '-5m', nanos: -5_000_000n, format: 'DecimalSI'},
    {input: '00012', nanos: 12n * 10n ** 9n, format: 'DecimalSI'},
    // Rounding: Kubernetes keeps nano precision and rounds anything finer up (away from zero).
    {input: '3.001n', nanos: 4n, format: 'DecimalSI', note: 'k8s'},
    {input: '1.1E-9', nanos: 2n, format: 'DecimalExponent', note: 'k8s'},
    {input: '0.0000000001', nanos: 1n, format: 'DecimalSI', note: 'k8s'},
    {input: '0.5e-9', nanos: 1n, format: 'DecimalExponent', note: 'k8s'},
    {input: '0.00000012345', nanos: 124n, format: 'DecimalSI', note: 'k8s'},
    {input: '-0.9n', nanos: -1n, format: 'DecimalSI', note: 'away from zero'},
    {input: '1e-99999', nanos: 1n, format: 'DecimalExponent', note: 'tiny but non-zero'},
    {input: '0.000000000001Ki', nanos: 2n, format: 'DecimalSI', note: 'k8s: rounds up, binary below 1 turns DecimalSI'},
    // The BinarySI cap at 2^63-1 (kubernetes/kubernetes#140674); decimal forms are not capped.
    {input: '8Ei', nanos: MAX_INT64 * 10n ** 9n, format: 'BinarySI', note: '2^63 capped to 2^63-1'},
    {input: '9Ei', nanos: MAX_INT64 * 10n ** 9n, format: 'BinarySI', note: 'k8s'},
    {input: '9223372036854775807Ki', nanos: MAX_INT64 * 10n ** 9n, format: 'BinarySI', note: 'k8s'},
    {input: '-8Ei', nanos: -MAX_INT64 * 10n ** 9n, format: 'BinarySI', note: 'the cap applies to the magnitude'},
    {input: '9223372036854775808', nanos: (MAX_INT64 + 1n) * 10n ** 9n, format: 'DecimalSI'},
    {input: '12E', nanos: 12n * 10n ** 27n, format: 'DecimalSI', note: 'k8s'},
    // Forms the scanner accepts although the quoted regular expression would not.
    {input: '1.', nanos: 10n ** 9n, format: 'DecimalSI', note: 'k8s'},
    {input: '1.G', nanos: 10n ** 18n, format: 'DecimalSI', note: 'k8s'},
    {input: '.001', nanos: 10n ** 6n, format: 'DecimalSI', note: 'k8s'},
    {input: '.', nanos: 0n, format: 'DecimalSI', note: 'k8s parseQuantityString test'},
    {input: '-', nanos: 0n, format: 'DecimalSI'},
    {input: 'Gi', nanos: 0n, format: 'BinarySI', note: 'a bare suffix is zero in Kubernetes'},
    {input: 'Ti', nanos: 0n, format: 'BinarySI'},
    {input: 'e-9', nanos: 0n, format: 'DecimalExponent'},
    {input: '1e4294967296', nanos: 10n ** 9n, format: 'DecimalExponent', note: 'Go narrows the exponent to int32'},
    {input: `1e${MAX_DECIMAL_EXPONENT}`, nanos: 10n ** BigInt(MAX_DECIMAL_EXPONENT + 9), format: 'DecimalExponent'},
    {
      input: `0.001e${MAX_DECIMAL_EXPONENT + 3}`,
      nanos: 10n ** BigInt(MAX_DECIMAL_EXPONENT + 9),
      format: 'DecimalExponent',
    },
    {
      input: `-9${'9'.repeat(MAX_DECIMAL_EXPONENT)}.999999999`,
      nanos: -(10n ** BigInt(MAX_DECIMAL_EXPONENT + 10) - 1n),
      format: 'DecimalSI',
    },
    {input: '0e99999999', nanos: 0n, format: 'DecimalExponent', note: 'zero is zero at any exponent'},
  ]
  for (const row of rows) {
    test(`${JSON.stringify(row.input)}${row.note ? ` (${row.note})` : ''}`, () => {
      const q = parseQuantity(row.input)
      assert.equal(q.nanos, row.nanos)
      assert.equal(q.format, row.format)
    })
  }
})

describe('compareQuantities: equal across suffix forms', () => {
  const rows: {a: string; b: string}[] = [
    {a: '1Gi', b: '1073741824'},
    {a: '1Gi', b: '1024Mi'},
    {a: '1Ki', b: '1024'},
    {a: '1000m', b: '1'},
    {a: '1k', b: '1000'},
    {a: '1e3', b: '1k'},
    {a: '1E-3', b: '1m'},
    {a: '1M', b: '1e6'},
    {a: '1000M', b: '1G'},
    {a: '0.5', b: '500m'},
    {a: '.5', b: '500m'},
    {a: '1.5Gi', b: '1536Mi'},
    {a: '+1Gi', b: '1Gi'},
    {a: '1000000u', b: '1'},
    {a: '1000000000n', b: '1'},
    {a: '1Ei', b: '1152921504606846976'},
    {a: '1.3E+6', b: '1300k'},
    {a: '12E', b: '12e18'},
    {a: '0', b: '0Gi'},
    {a: '0', b: '-0'},
    {a: '0', b: '0.000e5'},
    {a: '8Ei', b: '9223372036854775807'},
    {a: '8Ei', b: '9Ei'},
    {a: '0.9n', b: '1n'},
  ]
  for (const {a, b} of rows) {
    test(`${a} == ${b}`, () => {
      assert.equal(cmp(a, b), 0)
      assert.equal(cmp(b, a), 0)
    })
  }
})

describe('compareQuantities: ordering', () => {
  const rows: {smaller: string; larger: string; why?: string}[] = [
    {smaller: '1Gi', larger: '1.5Gi'},
    {smaller: '1G', larger: '1Gi'},
    {smaller: '1k', larger: '1Ki'},
    {smaller: '100Gi', larger: '10000T', why: 'k8s'},
    {smaller: '50m', larger: '100m', why: 'k8s'},
    {smaller: '0', larger: '1n'},
    {smaller: '-1', larger: '0'},
    {smaller: '-2Gi', larger: '-1Gi'},
    {smaller: '1Gi', larger: '1073741825'},
    {smaller: '1073741823999m', larger: '1Gi'},
    {smaller: '9007199254740992', larger: '9007199254740993', why: 'equal as float64'},
    {smaller: '7Ei', larger: '8Ei'},
    {smaller: '8Ei', larger: '9223372036854775808', why: 'BinarySI is capped, decimal is not'},
    {smaller: '1E', larger: '1Ei'},
    {smaller: '8Ei', larger: '1e19'},
    {smaller: '1n', larger: '1.000000001'},
  ]
  for (const {smaller, larger, why} of rows) {
    test(`${smaller} < ${larger}${why ? ` (${why})` : ''}`, () => {
      assert.equal(cmp(smaller, larger), -1)
      assert.equal(cmp(larger, smaller), 1)
    })
  }
})

describe('quantityValue: Quantity.Value(), rounded up away from zero', () => {
  const rows: {input: string; value: bigint}[] = [
    {input: '0', value: 0n},
    {input: '1', value: 1n},
    {input: '1m', value: 1n},
    {input: '1n', value: 1n},
    {input: '999m', value: 1n},
    {input: '1000m', value: 1n},
    {input: '1001m', value: 2n},
    {input: '1.5', value: 2n},
    {input: '2.000000001', value: 3n},
    {input: '1Gi', value: 1073741824n},
    {input: '0.5Mi', value: 524288n},
    {input: '100.035Ki', value: 102436n},
    {input: '1.5Gi', value: 1610612736n},
    {input: '-1.5', value: -2n},
    {input: '-1m', value: -1n},
    {input: '8Ei', value: MAX_INT64},
    {input: '12E', value: 12n * 10n ** 18n},
  ]
  for (const {input, value} of rows) {
    test(`${input} -> ${value}`, () => {
      assert.equal(quantityValue(parseQuantity(input)), value)
    })
  }
})

describe('parseQuantity: invalid input', () => {
  const rows: {input: string; reason: QuantityErrorReason}[] = [
    {input: '', reason: 'format'},
    {input: '10Gx', reason: 'format'},
    {input: '1.2.3', reason: 'format'},
    {input: '1.1.M', reason: 'format'},
    {input: '1+1.0M', reason: 'format'},
    {input: '0.1am', reason: 'format'},
    {input: 'aoeu', reason: 'format'},
    {input: '1Kb', reason: 'format'},
    {input: ' 1', reason: 'format'},
    {input: '1 ', reason: 'format'},
    {input: '1\n', reason: 'format'},
    {input: '--1', reason: 'suffix'}, // the scanner reads "-1" as a suffix
    {input: '0.1mi', reason: 'suffix'},
    {input: '.5i', reason: 'suffix'},
    {input: '1i', reason: 'suffix'},
    {input: '-3.01i', reason: 'suffix'},
    {input: '-3.01e-', reason: 'suffix'},
    {input: '1K', reason: 'suffix'},
    {input: '1ki', reason: 'suffix'},
    {input: '1GiB', reason: 'format'},
    {input: '1ee3', reason: 'suffix'},
    {input: '1e99999999999999999999', reason: 'suffix'},
    // A digit-less number outside Go's int64 fast path reaches inf.Dec, which wants a digit.
    {input: 'Pi', reason: 'numeric'},
    {input: 'Ei', reason: 'numeric'},
    {input: 'e-10', reason: 'numeric'},
    {input: `1e${MAX_DECIMAL_EXPONENT + 1}`, reason: 'range'},
    // The same bound whatever the notation: digits, a fraction with an exponent.
    {input: `1${'0'.repeat(MAX_DECIMAL_EXPONENT + 1)}`, reason: 'range'},
    {input: `10e${MAX_DECIMAL_EXPONENT}`, reason: 'range'},
    {input: `0.001e${MAX_DECIMAL_EXPONENT + 4}`, reason: 'range'},
    // Longer than any quantity kept needs: only padding, or what a snapshot of 50 MB of digits holds.
    {input: `0${'0'.repeat(MAX_QUANTITY_LENGTH)}1`, reason: 'range'},
    {input: '1'.repeat(50_000_000), reason: 'range'},
  ]
  const messages: Record<QuantityErrorReason, string | RegExp> = {
    format: FORMAT_MESSAGE,
    suffix: "unable to parse quantity's suffix",
    numeric: 'unable to parse numeric part of quantity',
    range: /too large|too long/,
  }
  for (const {input, reason} of rows) {
    test(`${JSON.stringify(input)} -> ${reason}`, () => {
      assert.throws(
        () => parseQuantity(input),
        (err: unknown) => {
          assert.ok(err instanceof QuantityError)
          assert.equal(err.reason, reason)
          assert.equal(err.input, input)
          const want = messages[reason]
          if (typeof want === 'string') assert.equal(err.message, want)
          else assert.match(err.message, want)
          return true
        },
      )
      assert.equal(isValidQuantity(input), false)
    })
  }

  test('a non-string (an unquoted YAML number) is refused, not coerced', () => {
    assert.throws(() => parseQuantity(10 as unknown as string), QuantityError)
    assert.equal(isValidQuantity(null as unknown as string), false)
  })
})

describe('isValidQuantity', () => {
  const rows: {input: string; valid: boolean}[] = [
    {input: '10Gi', valid: true},
    {input: '1.5', valid: true},
    {input: '1e3', valid: true},
    {input: '-1', valid: true},
    {input: '8Ei', valid: true},
    {input: '10Gx', valid: false},
    {input: '', valid: false},
    {input: '10 Gi', valid: false},
  ]
  for (const {input, valid} of rows) {
    test(`${JSON.stringify(input)} -> ${valid}`, () => {
      assert.equal(isValidQuantity(input), valid)
    })
  }
})
