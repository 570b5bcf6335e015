import { killLeftoverServices } from './service-process';

// A test that fails before stopping the services it started must not leave them running.
afterAll(() => killLeftoverServices());
