import {
  ConcurrencyError,
  ConflictError,
  InvalidListOptionsError,
  InvalidThreadIdError,
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
  if (ThreadNotFoundError.isInstance(error) || PointNotFoundError.isInstance(error)) return 404;
  if (ConcurrencyError.isInstance(error) || ConflictError.isInstance(error)) return 409;
  if (InvalidThreadIdError.isInstance(error) || InvalidListOptionsError.isInstance(error)) return 400;
  if (UnsupportedOperationError.isInstance(error) || UnknownThreadTypeError.isInstance(error)) return 501;
  return 500;
}
