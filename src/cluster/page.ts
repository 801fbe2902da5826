// One page of a LIST as the API server answers it with limit and continue: the loader, the informers and
// the wire client page through collections the same way.
export interface PageOptions {
  limit: number
  continueToken?: string
  labelSelector?: string
  /**
   * Told the page's continue token as soon as the head of the answer holds it (list-head.ts), before the
   * rest arrives; the page's parsed metadata.continue, not this, decides what comes next.
   */
  onContinue?: (continueToken: string) => void
}

export interface Page<T> {
  items: T[]
  continueToken?: string
  resourceVersion?: string
}
