/**
 * A reader over an environment map that collects every problem instead of stopping at the first,
 * so start-up can list all invalid variables at once.
 */
export type Env = Record<string, string | undefined>;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

const TRUE = new Set(['true', '1', 'yes']);
const FALSE = new Set(['false', '0', 'no']);

export class EnvReader {
  readonly problems: string[] = [];
  constructor(private readonly env: Env) {}

  /** The raw value; empty strings count as unset. */
  raw(name: string): string | undefined {
    const v = this.env[name];
    return v === undefined || v === '' ? undefined : v;
  }

  fail(name: string, reason: string): void {
    this.problems.push(`${name}: ${reason}`);
  }

  string(name: string, fallback: string): string;
  string(name: string): string | undefined;
  string(name: string, fallback?: string): string | undefined {
    return this.raw(name) ?? fallback;
  }

  /**
   * A whole number in [min, max]. Accepts only decimal digits (and a leading minus when min < 0).
   * With an undefined fallback, unset reads as undefined (the default is decided elsewhere).
   */
  int(name: string, fallback: number, min: number, max?: number): number;
  int(name: string, fallback: undefined, min: number, max?: number): number | undefined;
  int(
    name: string,
    fallback: number | undefined,
    min: number,
    max: number = Number.MAX_SAFE_INTEGER,
  ): number | undefined {
    const v = this.raw(name);
    if (v === undefined) return fallback;
    if (!/^-?[0-9]+$/.test(v.trim())) {
      this.fail(name, `must be a whole number, got ${JSON.stringify(v)}`);
      return fallback;
    }
    const n = Number(v.trim());
    if (!Number.isSafeInteger(n) || n < min || n > max) {
      this.fail(name, `must be between ${min} and ${max}, got ${v}`);
      return fallback;
    }
    return n;
  }

  /** true/false/1/0/yes/no, case-insensitive. */
  bool(name: string, fallback: boolean): boolean {
    const v = this.raw(name);
    if (v === undefined) return fallback;
    const k = v.trim().toLowerCase();
    if (TRUE.has(k)) return true;
    if (FALSE.has(k)) return false;
    this.fail(name, `must be one of true/false/1/0/yes/no, got ${JSON.stringify(v)}`);
    return fallback;
  }

  oneOf<T extends string>(name: string, fallback: T, allowed: readonly T[]): T {
    const v = this.raw(name);
    if (v === undefined) return fallback;
    if ((allowed as readonly string[]).includes(v)) return v as T;
    this.fail(name, `must be one of ${allowed.join(', ')}, got ${JSON.stringify(v)}`);
    return fallback;
  }

  /** An absolute http(s) base URL without path, query or trailing slash. */
  baseUrl(name: string): string | undefined {
    const v = this.raw(name);
    if (v === undefined) return undefined;
    let u: URL;
    try {
      u = new URL(v);
    } catch {
      this.fail(name, `must be an absolute URL such as https://example.org, got ${JSON.stringify(v)}`);
      return undefined;
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') {
      this.fail(name, `must use http or https, got ${JSON.stringify(v)}`);
      return undefined;
    }
    if ((u.pathname !== '/' && u.pathname !== '') || u.search || u.hash || u.username || u.password) {
      this.fail(
        name,
        `must be scheme, host and optional port only (no path, query or credentials), got ${JSON.stringify(v)}`,
      );
      return undefined;
    }
    return `${u.protocol}//${u.host}`;
  }
}
