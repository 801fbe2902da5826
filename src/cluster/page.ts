// One page of a LIST as the API server answers it with limit and continue: the loader, the informers and
// the wire client page through collections the same way.
export interface PageOptions {
  limit: number
  continueToken?: string
  labelSelector?: string
}

export interface Page<T> {
  items: T[]
  continueToken?: string
  resourceVersion?: string
}
