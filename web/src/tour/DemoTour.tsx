import { Button, Group, Paper, Stack, Text, Title } from '@mantine/core';
import { useWindowEvent } from '@mantine/hooks';
import { dashboardListSchema } from '@service/common';
import { type CSSProperties, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { createPortal } from 'react-dom';
import { useNavigate } from 'react-router';
import { useApi, useAuth } from '../auth/session.js';
import { TOUR_STEPS } from './steps.js';

const CARD_WIDTH = 340;
const GAP = 12;
/** Above the app shell (100), below Mantine's modals (200): the sign-in modal is never covered. */
const Z_INDEX = 150;

function targetOf(stepId: string): HTMLElement | null {
  const element = document.querySelector<HTMLElement>(`[data-tour="${stepId}"]`);
  if (element === null) return null;
  const rect = element.getBoundingClientRect();
  return rect.width > 0 && rect.height > 0 ? element : null;
}

/** Below the target when it fits, else above, else beside it; the middle of the window without one. */
function placement(target: HTMLElement | null, cardHeight: number): CSSProperties {
  if (target === null) {
    return { top: '50%', left: '50%', transform: 'translate(-50%, -50%)' };
  }
  const rect = target.getBoundingClientRect();
  const left = Math.min(Math.max(GAP, rect.left), window.innerWidth - CARD_WIDTH - GAP);
  if (rect.bottom + GAP + cardHeight < window.innerHeight) return { top: rect.bottom + GAP, left };
  if (rect.top - GAP - cardHeight > 0) return { top: rect.top - GAP - cardHeight, left };
  return { top: Math.max(GAP, rect.top), left: Math.min(rect.right + GAP, window.innerWidth - CARD_WIDTH - GAP) };
}

/** Duplicate to Edit points at a dashboard's button: on that step, open a dashboard the visitor may only read. */
function useReadOnlyDashboardFor(stepId: string) {
  const api = useApi();
  const navigate = useNavigate();
  useEffect(() => {
    if (stepId !== 'duplicate' || targetOf('duplicate') !== null) return;
    const controller = new AbortController();
    api
      .request('/dashboards', dashboardListSchema, { query: { limit: 50 }, signal: controller.signal })
      .then((list) => {
        const readOnly = list.items.find((item) => !['owner', 'editor', 'admin'].includes(item.my_role ?? ''));
        if (readOnly && !controller.signal.aborted) navigate(`/dashboards/${readOnly.dashboard_id}`);
      })
      .catch(() => {});
    return () => controller.abort();
  }, [api, navigate, stepId]);
}

/** Follow the target as the page lays out (it may appear after a navigation), scrolls or resizes. */
function useRelayout() {
  const [, setTick] = useState(0);
  useEffect(() => {
    const timer = window.setInterval(() => setTick((tick) => tick + 1), 250);
    return () => window.clearInterval(timer);
  }, []);
  useWindowEvent('resize', () => setTick((tick) => tick + 1));
}

/** Marks the step's target (for its outline) and scrolls it into view. */
function useActive(target: HTMLElement | null) {
  useEffect(() => {
    target?.setAttribute('data-tour-active', 'true');
    target?.scrollIntoView({ block: 'nearest' });
    return () => target?.removeAttribute('data-tour-active');
  }, [target]);
}

/**
 * The demo tour (docs/architecture.md "Dashboards"): five steps, each a card next to the element it names,
 * with Back, Next and Skip. It is not modal: the page stays usable, focus is never trapped (the
 * card takes focus when a step opens; Tab goes on into the page) and Escape skips it.
 */
export function DemoTour({ onEnd }: { onEnd: (record: 'done' | 'skipped') => void }) {
  const [index, setIndex] = useState(0);
  const cardRef = useRef<HTMLDivElement>(null);
  const { capabilities } = useAuth();
  const hours = capabilities.auth.temporary_user_expiry_hours ?? 24;
  const step = TOUR_STEPS[index] ?? TOUR_STEPS[0];
  if (step === undefined) throw new Error('the tour has no steps');
  const last = index === TOUR_STEPS.length - 1;

  useReadOnlyDashboardFor(step.id);
  useRelayout();
  const target = targetOf(step.id);
  useActive(target);
  // biome-ignore lint/correctness/useExhaustiveDependencies: focus moves to the card when a step opens.
  useLayoutEffect(() => {
    cardRef.current?.focus();
  }, [index]);

  const titleId = `tour-title-${step.id}`;
  // Straight into <body> (not Mantine's Portal, which mounts a render later) so the card is there to take focus.
  return createPortal(
    <Paper
      ref={cardRef}
      role="dialog"
      aria-modal="false"
      aria-labelledby={titleId}
      aria-describedby={`${titleId}-body`}
      tabIndex={-1}
      shadow="lg"
      withBorder
      radius="md"
      p="md"
      className="demo-tour"
      data-tour-step={step.id}
      style={{
        position: 'fixed',
        width: CARD_WIDTH,
        maxWidth: `calc(100vw - ${2 * GAP}px)`,
        zIndex: Z_INDEX,
        ...placement(target, cardRef.current?.offsetHeight ?? 180),
      }}
      onKeyDown={(event) => {
        if (event.key === 'Escape') onEnd('skipped');
      }}
    >
      <Stack gap="xs">
        <Text size="xs" c="dimmed">
          Tour · step {index + 1} of {TOUR_STEPS.length}
        </Text>
        <Title order={2} size="h4" id={titleId}>
          {step.title}
        </Title>
        <Text size="sm" id={`${titleId}-body`}>
          {step.body(hours)}
        </Text>
        <Group justify="space-between" mt="xs">
          <Button variant="subtle" size="xs" onClick={() => onEnd('skipped')}>
            Skip tour
          </Button>
          <Group gap="xs">
            <Button variant="default" size="xs" disabled={index === 0} onClick={() => setIndex(index - 1)}>
              Back
            </Button>
            <Button size="xs" onClick={() => (last ? onEnd('done') : setIndex(index + 1))}>
              {last ? 'Finish' : 'Next'}
            </Button>
          </Group>
        </Group>
      </Stack>
    </Paper>,
    document.body,
  );
}
