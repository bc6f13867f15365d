export const API_PREFIX = '/service/api/v1';
