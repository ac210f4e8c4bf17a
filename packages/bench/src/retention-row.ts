/** One sweep measured: how many expired among how many, and what it cost. */
export interface RetentionRow {
  store: string;
  threads: number;
  expired: number;
  /** Wall time of the sweep, in milliseconds. */
  milliseconds: number;
  /** Records the sweep read from the driver (index, catalogue and scan reads together). */
  recordsRead: number;
  deleted: number;
}
