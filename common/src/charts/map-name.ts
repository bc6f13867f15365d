/** The name the world's countries are registered under with ECharts (`registerMap`, world-map.ts). */
export const WORLD_MAP = 'world';
