// The `pvctl.io/audit-ignore: CODE,...` annotation: the finding codes the owner of a claim, volume or class
// silenced on that object on purpose (docs/codes.md, "Silencing"). PURE.
import type {ObjectMeta} from '../api/model.js'
import {FINDING_CODES, objectKey, type FindingObject} from './findings.js'

export const AUDIT_IGNORE_ANNOTATION = 'pvctl.io/audit-ignore'

export interface AnnotatedObject {
  object: FindingObject
  metadata: ObjectMeta
}

export interface AnnotationIgnores {
  /** The finding codes each annotated object silences, by objectKey. */
  codes: Map<string, ReadonlySet<string>>
  /**
   * Names in an annotation that are no finding code (a typo, or a code of another pvctl version): they
   * silence nothing, and the audit says so rather than failing on one object's annotation.
   */
  unknown: Array<{object: FindingObject; names: string[]}>
}

/** Reads the annotation of each object: codes separated by commas, blanks around them ignored. */
export function annotationIgnores(objects: Iterable<AnnotatedObject>): AnnotationIgnores {
  const result: AnnotationIgnores = {codes: new Map(), unknown: []}
  for (const {object, metadata} of objects) {
    const value = metadata.annotations?.[AUDIT_IGNORE_ANNOTATION]
    if (value !== undefined) {
      const names = value
        .split(',')
        .map((c) => c.trim())
        .filter((c) => c !== '')
      const unknown = names.filter((c) => !(c in FINDING_CODES))
      result.codes.set(objectKey(object), new Set(names.filter((c) => c in FINDING_CODES)))
      if (unknown.length > 0) result.unknown.push({object, names: unknown})
      else {
        // Every name is a finding code.
      }
    } else {
      // Not annotated: nothing silenced on it.
    }
  }
  return result
}
