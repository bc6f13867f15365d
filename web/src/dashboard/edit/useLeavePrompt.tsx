import { Button, Group, Modal, Text } from '@mantine/core';
import { useEffect, useRef } from 'react';
import { useBlocker } from 'react-router';

/** The address's query without `tab`: opening another tab of the draft leaves nothing. */
function withoutTab(search: string): string {
  const params = new URLSearchParams(search);
  params.delete('tab');
  return params.toString();
}

/**
 * Unsaved changes are not lost by accident: closing or reloading the tab asks the browser's
 * question (beforeunload), leaving within the app asks ours. `allowNext()` lets one navigation
 * through (after Save, or a confirmed Cancel).
 */
export function useLeavePrompt(unsaved: boolean) {
  const allowed = useRef(false);
  useEffect(() => {
    if (!unsaved) return;
    const warn = (event: BeforeUnloadEvent) => {
      event.preventDefault();
      // Older browsers show the prompt only when returnValue is set.
      event.returnValue = '';
    };
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [unsaved]);
  const blocker = useBlocker(({ currentLocation, nextLocation }) => {
    if (allowed.current) {
      allowed.current = false;
      return false;
    }
    return (
      unsaved &&
      (currentLocation.pathname !== nextLocation.pathname ||
        withoutTab(currentLocation.search) !== withoutTab(nextLocation.search))
    );
  });
  const prompt = (
    <Modal
      opened={blocker.state === 'blocked'}
      onClose={() => blocker.reset?.()}
      title="Leave without saving?"
      centered
    >
      <Text mb="md">This dashboard has changes that are not saved. Leaving drops them.</Text>
      <Group justify="flex-end">
        <Button variant="default" onClick={() => blocker.reset?.()} data-autofocus>
          Stay and keep editing
        </Button>
        <Button color="red" onClick={() => blocker.proceed?.()}>
          Leave and drop my changes
        </Button>
      </Group>
    </Modal>
  );
  return {
    prompt,
    allowNext: () => {
      allowed.current = true;
    },
  };
}
