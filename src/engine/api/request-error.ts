// A request the engine cannot answer as it was asked, in the API server's words for why (its StatusReason):
// an object named that the state lacks, a List too large to make. The message is for the user; the layer
// that asked says it as the usage error it is.

export type RequestErrorReason = 'NotFound' | 'RequestEntityTooLarge'

export class RequestError extends Error {
  constructor(
    message: string,
    readonly reason: RequestErrorReason,
    /** What the user probably meant, or can do instead. */
    readonly suggestions: readonly string[] = [],
  ) {
    super(message)
    this.name = 'RequestError'
  }
}
