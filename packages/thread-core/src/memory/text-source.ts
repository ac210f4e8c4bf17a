/** What the cache reads of a segment: its texts, which never change at an offset once written. */
export interface TextSource {
  readonly texts: readonly string[];
}
