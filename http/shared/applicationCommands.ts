// What the command routes and the interaction routes share: an option's choice, as a command declares it and as an
// autocomplete answer offers it.

/** The widely used API's bounds on option values: integers a double holds exactly. */
export const MAX_OPTION_VALUE = 2 ** 53;

export const localizations = { type: ['object', 'null'], additionalProperties: { type: 'string', minLength: 1, maxLength: 100 } } as const;

export const choiceSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 100 },
    name_localizations: localizations,
    // A string value is at most 100 characters; numbers must fit the option's type (the decider checks which).
    value: { type: ['string', 'number'], maxLength: 100, minimum: -MAX_OPTION_VALUE, maximum: MAX_OPTION_VALUE },
  },
  required: ['name', 'value'],
  additionalProperties: false,
} as const;
