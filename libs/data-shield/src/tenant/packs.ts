import type { TenantPattern, TenantRecognizer, TenantWordList } from './tenant-detectors';

export interface DetectorPack {
  name: string;
  description: string;
  patterns: TenantPattern[];
  word_lists: TenantWordList[];
  recognizers: TenantRecognizer[];
}

/**
 * Detector packs a tenant installs and uninstalls (spec 4.17 rule 4). Their
 * patterns are RE2 expressions, like a tenant's own, and their names are
 * prefixed with the pack's so they read apart from the tenant's detectors.
 */
export const DETECTOR_PACKS: Readonly<Record<string, DetectorPack>> = {
  insurance: {
    name: 'insurance',
    description: 'Policy, claim and member numbers, Medicare beneficiary identifiers, health conditions named in claims',
    patterns: [
      { name: 'insurance.policy_number', entity_type: 'POLICY_NUMBER', pattern: `(?i)\\b(?:POL|PLCY|POLICY)[-# ]?[A-Z]{0,3}\\d{6,12}\\b`, score: 0.9 },
      { name: 'insurance.claim_number', entity_type: 'CLAIM_NUMBER', pattern: `(?i)\\b(?:CLM|CLAIM)[-# ]?\\d{6,12}\\b`, score: 0.9 },
      {
        name: 'insurance.medicare_mbi',
        entity_type: 'MEDICARE_MBI',
        pattern: `\\b[1-9][AC-HJKMNP-RT-Y][AC-HJKMNP-RT-Y0-9]\\d-?[AC-HJKMNP-RT-Y][AC-HJKMNP-RT-Y0-9]\\d-?[AC-HJKMNP-RT-Y]{2}\\d{2}\\b`,
        score: 0.85,
      },
    ],
    word_lists: [
      {
        name: 'insurance.health_conditions',
        entity_type: 'HEALTH_CONDITION',
        score: 0.7,
        words: [
          'diabetes',
          'type 1 diabetes',
          'type 2 diabetes',
          'hiv',
          'aids',
          'hepatitis b',
          'hepatitis c',
          'cancer',
          'leukemia',
          'lymphoma',
          'depression',
          'bipolar disorder',
          'schizophrenia',
          'epilepsy',
          'multiple sclerosis',
          "parkinson's disease",
          "alzheimer's disease",
          'dementia',
          'tuberculosis',
          'pregnancy',
          'miscarriage',
          'substance use disorder',
          'alcoholism',
          'anorexia',
          'bulimia',
          'ptsd',
          'autism',
          'asthma',
          'copd',
          'heart failure',
          'stroke',
          'kidney failure',
          'dialysis',
          'chemotherapy',
        ],
      },
    ],
    recognizers: [
      {
        name: 'insurance.member_id',
        entity_type: 'MEMBER_ID',
        pattern: `\\b[A-Z]{1,3}\\d{6,12}\\b`,
        context_words: ['member', 'member id', 'subscriber', 'insured', 'policyholder', 'beneficiary'],
        score: 0.3,
        score_threshold: 0.6,
      },
      { name: 'insurance.group_number', entity_type: 'GROUP_NUMBER', pattern: `\\b\\d{5,10}\\b`, context_words: ['group number', 'group no', 'grp'], score: 0.2, score_threshold: 0.5 },
    ],
  },
  hr: {
    name: 'hr',
    description: 'Employee ids, salaries, and terms that reveal health, disciplinary or union matters in HR records',
    patterns: [{ name: 'hr.employee_id', entity_type: 'EMPLOYEE_ID', pattern: `(?i)\\b(?:EMP|EMPL|EE)[-# ]?\\d{4,8}\\b`, score: 0.85 }],
    word_lists: [
      {
        name: 'hr.sensitive_terms',
        entity_type: 'HR_SENSITIVE',
        score: 0.6,
        words: [
          'disciplinary action',
          'written warning',
          'final warning',
          'performance improvement plan',
          'termination for cause',
          'gross misconduct',
          'grievance',
          'harassment complaint',
          'whistleblower',
          'sick leave',
          'medical leave',
          'maternity leave',
          'paternity leave',
          'disability accommodation',
          'union member',
          'union membership',
          'background check',
          'drug test',
          'garnishment',
          'severance agreement',
        ],
      },
    ],
    recognizers: [
      {
        name: 'hr.salary',
        entity_type: 'SALARY',
        pattern: `(?:USD|EUR|GBP|\\$|€|£)\\s?\\d{1,3}(?:[,.]\\d{3})+(?:\\.\\d{2})?|\\b\\d{2,3}(?:[,.]\\d{3})\\s?(?:USD|EUR|GBP|dollars|euros|pounds)\\b`,
        context_words: ['salary', 'salaries', 'compensation', 'pay', 'wage', 'wages', 'bonus', 'annual', 'base pay', 'raise'],
        score: 0.35,
        score_threshold: 0.6,
      },
      {
        name: 'hr.employee_number',
        entity_type: 'EMPLOYEE_ID',
        pattern: `\\b\\d{5,8}\\b`,
        context_words: ['employee', 'employee id', 'employee number', 'staff id', 'personnel number', 'badge'],
        score: 0.2,
        score_threshold: 0.5,
      },
    ],
  },
  financial: {
    name: 'financial',
    description: 'SWIFT/BIC codes, US routing and account numbers, ISIN and CUSIP securities identifiers',
    patterns: [],
    word_lists: [],
    recognizers: [
      {
        name: 'financial.swift_bic',
        entity_type: 'SWIFT_BIC',
        pattern: `\\b[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}(?:[A-Z0-9]{3})?\\b`,
        context_words: ['swift', 'bic', 'swift code', 'bank identifier', 'wire'],
        score: 0.3,
        score_threshold: 0.6,
      },
      {
        name: 'financial.routing_number',
        entity_type: 'ROUTING_NUMBER',
        pattern: `\\b[0-3]\\d{8}\\b`,
        context_words: ['routing', 'aba', 'routing number', 'transit', 'rtn'],
        score: 0.3,
        score_threshold: 0.6,
      },
      {
        name: 'financial.account_number',
        entity_type: 'ACCOUNT_NUMBER',
        pattern: `\\b\\d{6,17}\\b`,
        context_words: ['account', 'acct', 'account number', 'a/c', 'checking', 'savings', 'brokerage'],
        score: 0.2,
        score_threshold: 0.5,
      },
      {
        name: 'financial.isin',
        entity_type: 'ISIN',
        pattern: `\\b[A-Z]{2}[A-Z0-9]{9}\\d\\b`,
        context_words: ['isin', 'security', 'securities', 'bond', 'shares', 'fund'],
        score: 0.4,
        score_threshold: 0.6,
      },
      { name: 'financial.cusip', entity_type: 'CUSIP', pattern: `\\b[0-9]{3}[0-9A-Z]{5}[0-9]\\b`, context_words: ['cusip'], score: 0.2, score_threshold: 0.5 },
    ],
  },
};

export const PACK_NAMES = Object.keys(DETECTOR_PACKS);
