/** A seat's code as printed on the ticket (`F5`, `B-12`): one home for the core's checks and the API description. */
export const SEAT_CODE = /^[A-Z0-9][A-Z0-9-]{0,7}$/;
