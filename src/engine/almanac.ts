// A run's almanac: json-rules-engine's exported Almanac, with its one way of reading a fact answered by the
// request's state (request-run.ts), which runs the fact's plugin once and shares its value. Handed to each
// run through Engine#run's documented `almanac` option; the engine holds no facts of its own.
import { Almanac } from 'json-rules-engine';
import { type RequestRun, RULES } from './request-run.js';

export class RunAlmanac extends Almanac {
  constructor(readonly run: RequestRun) {
    super({ allowUndefinedFacts: false });
  }

  // The compiler emits no params or paths: the fact's name is all a condition asks for.
  override factValue<T>(factId: string): Promise<T> {
    return this.run.fact(factId, RULES) as Promise<T>;
  }
}
