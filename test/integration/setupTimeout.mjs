// Integration tests wait on real controllers; jest's 5 s default does not fit them.
import { jest } from '@jest/globals';
jest.setTimeout(300000);
