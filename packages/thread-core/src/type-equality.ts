/**
 * `true` when each type is assignable to the other, else `false`: a schema and the spec type it checks are
 * pinned together with `const check: Same<z.infer<typeof Schema>, SpecType> = true`, so a change to one side
 * alone fails the build.
 */
export type Same<Left, Right> = [Left] extends [Right] ? ([Right] extends [Left] ? true : false) : false;
