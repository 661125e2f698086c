// The velocity plugin's trailing windows (the spec names them), the facts it emits per window and its scan
// limit: shared here, below the plugins, so that risk can weigh a window's fact without importing velocity,
// and the device plugin counts a device's IPs over the device windows velocity counts its addresses in.
export const WINDOWS = [
  { name: '5_minutes', ms: 5 * 60_000 },
  { name: '10_minutes', ms: 10 * 60_000 },
  { name: '15_minutes', ms: 15 * 60_000 },
  { name: '30_minutes', ms: 30 * 60_000 },
  { name: '2_hour', ms: 2 * 3_600_000 },
  { name: '3_hour', ms: 3 * 3_600_000 },
] as const;

export type WindowName = (typeof WINDOWS)[number]['name'];

/** A device's windows: the IP's, and a day (a person opening accounts one by one over a day). */
export const DEVICE_WINDOWS = [...WINDOWS, { name: '1_day', ms: 86_400_000 }] as const;

export type DeviceWindowName = (typeof DEVICE_WINDOWS)[number]['name'];

/** Entries of emails_in_ip, the current request first. */
export const LIST_LIMIT = 20;
/**
 * Distinct addresses read from history to count distinct addresses per window: counts are exact up
 * to this many and a lower bound beyond it, so a threshold up to this value is decided exactly.
 */
export const DISTINCT_SCAN_LIMIT = 100;

export const countFact = (w: WindowName) => `emails_in_ip_last_${w}`;
export const distinctFact = (w: WindowName) => `distinct_emails_in_ip_last_${w}`;
