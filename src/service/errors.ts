// A request that is well-formed but cannot be served as asked: the HTTP layer answers 400 with the message.
export class InvalidRequest extends Error {
  readonly status = 400;
  readonly expose = true;

  constructor(message: string) {
    super(message);
    this.name = 'InvalidRequest';
  }
}
