/** Hands `blob` to the browser as a download named `filename` (a click on a temporary link). */
export function saveFile(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  link.style.display = 'none';
  document.body.append(link);
  link.click();
  link.remove();
  // The download has taken its copy once the click's task is over.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

/** Puts text on the clipboard; throws when the browser refuses (no focus, no permission). */
export async function copyText(text: string): Promise<void> {
  if (navigator.clipboard === undefined)
    throw new Error('This browser offers no clipboard here (an https page is needed).');
  await navigator.clipboard.writeText(text);
}
