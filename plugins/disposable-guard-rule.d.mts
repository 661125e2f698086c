// The types of disposable-guard-rule.mjs (the guard both the build and `data update` load).
export type Refusal = 'never-disposable' | 'university' | 'free provider' | 'ICANN public suffix' | 'private suffix';
export declare const REFUSALS: readonly Refusal[];
export declare function under(domain: string, set: ReadonlySet<string>): boolean;
export declare function freeProviderDomains(providersJson: string): Set<string>;
export interface GuardLists {
  never: ReadonlySet<string>;
  universities: ReadonlySet<string>;
  freeProviders: ReadonlySet<string>;
}
export declare function guardOf(lists: GuardLists): (domain: string, reviewed: boolean) => Refusal | null;
