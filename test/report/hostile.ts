// Text from outside at its worst, in every place a report puts such text: for the renderers' tests.

import { parseEvalDocument } from '../../src/report/eval-document.js';
import { evalReportData } from '../../src/report/from-eval.js';
import type { ReportData } from '../../src/report/model.js';

export const HOSTILE = [
  '<script>alert(1)</script>',
  '</style><script>alert(2)</script>',
  '"><img src=x onerror=alert(3)>',
  "' onmouseover='alert(4)",
  'javascript:alert(5)',
  '<a href="javascript:alert(6)">x</a>',
  '| a | b |\n# heading',
  '</details><details open>',
  '```\n<iframe src="https://evil.example/">',
  '<link rel=stylesheet href=https://evil.example/x.css>',
];

/** An eval's report with every hostile string in every place text from outside goes. */
export function hostileReport(): ReportData {
  const document = parseEvalDocument(
    {
      seed: 0,
      pass_threshold: 1,
      checkpoints: HOSTILE.slice(0, 3).map((h, i) => ({
        model: `${h}:step${i * 2}`,
        uri: `wandb-artifact:///t/p/x:step${i * 2}`,
        samples: 4,
        mean: 0.1 * (i + 1),
        std: 0.1,
        pass_rate: 0.25 * i,
        failed: 0,
      })),
      tasks: HOSTILE.map((h, i) => ({ id: h, means: [0, 0.5, i / 10], change: i / 10 })),
      changes: { improved: 9, worse: 0, unchanged: 1, unscored: 0 },
    },
    'eval.json',
  );
  return evalReportData({
    document,
    title: `Eval ${HOSTILE[0]}`,
    summary: [HOSTILE[1]!],
    samples: HOSTILE.map((h) => ({
      task: h,
      prompt: h,
      samples: [{ checkpoint: h, reward: 0.5, text: h, error: h }],
    })),
  });
}
