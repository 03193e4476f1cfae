/** The operator console's one script: each component enhances the element that names it. */
import { initAll, onReady } from './core/modules';
import { roomConsole } from './operator/room-console';

onReady(() => initAll({ 'room-console': roomConsole }));
