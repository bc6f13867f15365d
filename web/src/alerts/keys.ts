/** The query key of the caller's notifications (the bell), refetched when the live stream says one arrived. */
export const notificationsKey = ['notifications'];
