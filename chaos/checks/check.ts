/**
 * A fault run's checks, as numbers. Each check reads one side of the system (the database,
 * the gateway, Redis, the samplers) and returns named counts of what broke: 0 means the
 * invariant held. A check that throws could not run, and that fails the run as surely as a
 * breach: a check that cannot look proves nothing.
 */
export type Figures = Record<string, number>;

export interface Check<Context> {
  /** The column of the suite's table ("seats", "money", …). */
  name: string;
  run(context: Context): Promise<Figures>;
}

export interface CheckOutcome {
  /** Every figure of every check that ran, by figure name. */
  figures: Figures;
  /** Sum of figures per check (the table's "breaches by check"). */
  byCheck: Record<string, number>;
  /** Checks that threw, with why. */
  couldNotRun: Record<string, string>;
}

export async function runChecks<Context>(checks: Check<Context>[], context: Context): Promise<CheckOutcome> {
  const outcome: CheckOutcome = { figures: {}, byCheck: {}, couldNotRun: {} };
  for (const check of checks) {
    try {
      const figures = await check.run(context);
      let sum = 0;
      for (const [name, value] of Object.entries(figures)) {
        // A figure that is not a finite count is a check that did not measure.
        if (!Number.isFinite(value) || value < 0) throw new Error(`${name} is ${value}`);
        outcome.figures[name] = value;
        sum += value;
      }
      outcome.byCheck[check.name] = sum;
    } catch (error) {
      outcome.couldNotRun[check.name] = (error as Error).message ?? String(error);
    }
  }
  return outcome;
}

/** What fails the run: every non-zero figure, and every check that could not run. */
export function failuresOf(outcome: CheckOutcome): string[] {
  return [
    ...Object.entries(outcome.figures)
      .filter(([, value]) => value > 0)
      .map(([name, value]) => `${name} ${value}`),
    ...Object.entries(outcome.couldNotRun).map(([name, why]) => `check ${name} could not run: ${why}`),
  ];
}
