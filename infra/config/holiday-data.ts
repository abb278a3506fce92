/**
 * The loader's holidays: where synth and the CLI run, calendars read the whole `date-holidays`
 * data set (the Lambdas read the table synth wrote into their bundle instead).
 */
import { dateHolidaysSource } from '../../functions/calendar/date-holidays-data.ts';
import { useHolidaySource } from '../../functions/calendar/holiday-source.ts';

/**
 * Registers the whole data set as a holiday source, once; the package itself loads on the first
 * question, so a file without holidays costs nothing.
 */
export function useFullHolidayData(): void {
  useHolidaySource(dateHolidaysSource());
}
