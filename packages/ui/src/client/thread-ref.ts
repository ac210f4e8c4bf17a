/** Which thread a page shows: its id, the scope it lives in, and a workflow's sub-thread if one is open. */
export interface ThreadRef {
  id: string;
  scope?: string;
  sub?: string;
}
