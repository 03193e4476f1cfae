/** The operator console's one script: each component enhances the element that names it. */
import { initAll, onReady } from './core/modules';

onReady(() => initAll({}));
