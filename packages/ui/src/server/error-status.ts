import {
  ConcurrencyError,
  ConflictError,
  InvalidListOptionsError,
  InvalidOptionError,
  InvalidThreadIdError,
  MessageNotFoundError,
  MessageOffBranchError,
  PointNotFoundError,
  SkeinError,
  ThreadNotFoundError,
  UnknownThreadTypeError,
  UnsupportedOperationError,
} from "@skein/thread-core";
import type { ApiErrorBody } from "../api-types.js";
import { UiRequestError } from "../errors.js";

/** The HTTP status and body for an error. Errors that are not skein's own say only that something failed. */
export function describeApiError(error: unknown): { status: number; body: ApiErrorBody } {
  if (!SkeinError.isInstance(error)) {
    return {
      status: 500,
      body: { error: { name: "Error", message: "[ui] The request failed inside the server." } },
    };
  }
  return { status: statusOf(error), body: { error: { name: error.name, message: error.message } } };
}

function statusOf(error: SkeinError): number {
  if (UiRequestError.isInstance(error)) return (error as UiRequestError).status;
  if (
    ThreadNotFoundError.isInstance(error) ||
    PointNotFoundError.isInstance(error) ||
    MessageNotFoundError.isInstance(error)
  )
    return 404;
  // A message on another branch than the current: the thread's state, not the request's form, is in the way.
  if (
    ConcurrencyError.isInstance(error) ||
    ConflictError.isInstance(error) ||
    MessageOffBranchError.isInstance(error)
  )
    return 409;
  if (
    InvalidThreadIdError.isInstance(error) ||
    InvalidListOptionsError.isInstance(error) ||
    InvalidOptionError.isInstance(error)
  )
    return 400;
  if (UnsupportedOperationError.isInstance(error) || UnknownThreadTypeError.isInstance(error)) return 501;
  return 500;
}
