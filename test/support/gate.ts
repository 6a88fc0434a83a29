/**
 * A promise and the function that settles it: how a test holds a call in flight until it says
 * so (`await gate.opened` in the call, `gate.open()` in the test), or learns a call has begun.
 */
export function gate(): { opened: Promise<void>; open: () => void } {
  let open: () => void = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}
