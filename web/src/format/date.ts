// The timestamp formatters live in common/ with the number formatter, which card values share.
export { formatDate, formatDateSeconds } from '@service/common';
