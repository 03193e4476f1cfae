/** The pre-queue draw lives in lib/ (the fairness verifier runs the same code); the room uses it from here. */
export { drawOrder, newSeed, seedCommitment, verifyDraw } from '../../lib/fair-draw';
