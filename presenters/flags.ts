// Bitfields the service never sets.

/** No flag set. discord-api-types declares each flags field as an enum with no member for 0, which a `number` fits. */
export const NO_FLAGS: number = 0;
