/** Fault rules (issue 4): parse, format, validate, match and plan the receiver's deliberate failures. */
export type { AttemptRange, FaultAnswer, FaultAnswerKind, FaultMatch, FaultRule, RedirectStatus, RetryAfterSpec } from './rule.js';
export { DEFAULT_REDIRECT_STATUS, MAX_HOPS } from './rule.js';
export { MAX_RULE_LENGTH, parseFaultRule } from './parse-rule.js';
export type { FaultRuleParse } from './parse-rule.js';
export { formatAnswer, formatFaultRule } from './format-rule.js';
export { MAX_RULES, faultRuleFromJson, faultRuleToJson, faultRulesFromJson, faultRulesToJson } from './rule-json.js';
export type { FaultAnswerJson, FaultRuleFileJson, FaultRuleJson, FaultRuleJsonResult, FaultRulesJsonResult, RuleJsonProblem } from './rule-json.js';
export { conditionsHold, decideFault, emptyFaultState, faultRuleKey } from './match-rule.js';
export type { FaultArrival, FaultDecision, FaultState } from './match-rule.js';
export { FAULT_ERROR_CODE, FAULT_HEADER, SLOW_HEADERS_STATUS_LINE, planFaultAnswer, planHopArrival } from './answer-plan.js';
export type { AnswerPlan, FaultPlan, PlanContext } from './answer-plan.js';
export { HOP_SEGMENT, buildHopPath, hopPrefix, makeHopNonce, parseHopPath } from './hop-path.js';
export type { HopPathParse, HopRef } from './hop-path.js';
export { formatImfFixdate, isImfFixdate, resolveRetryAfter } from './retry-after.js';
export { globMatch } from './glob.js';
export { shadowingRule } from './shadowing.js';
