// ESLint flat config: typescript-eslint's recommended rules for src/ (the compiled out/ is ignored).
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['out/**', 'node_modules/**'] },
  ...tseslint.configs.recommended,
  {
    files: ['src/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      curly: 'error',
      eqeqeq: 'error',
      'no-throw-literal': 'error',
    },
  },
);
