/**
 * Amounts as the law's rules compare them: euros with two decimals, compared in whole cents so no
 * float rounding decides a verdict.
 */

/** Euros to whole cents. */
export const cents = (amount: number): number => Math.round(amount * 100);

/** Whole cents (number or bigint) as euros with two decimals, for messages. */
export const euros = (c: number | bigint): string => (Number(c) / 100).toFixed(2);

/** Whole cents back to a euro amount (a number, for response bodies). */
export const toEuros = (c: number | bigint): number => Number(c) / 100;
