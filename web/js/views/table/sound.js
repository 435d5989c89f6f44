// The table's sounds, made on the spot with Web Audio (no files): a card dealt, a chip placed,
// a win, and the timer's last seconds. Off until the player turns them on; the choice is kept.
const KEY = "boundless.sound";
const VOICES = {
  deal: [[880, 0.035, "triangle", 0.06]],
  chip: [[1500, 0.04, "square", 0.025], [1100, 0.04, "square", 0.02]],
  win: [[660, 0.12, "sine", 0.08], [880, 0.18, "sine", 0.08]],
  tick: [[1000, 0.06, "sine", 0.06]],
};

let audio = null;
let lastDeal = 0;

export function soundOn() {
  return localStorage.getItem(KEY) === "on";
}

export function setSound(on) {
  localStorage.setItem(KEY, on ? "on" : "off");
}

/** Play one of the sounds (nothing while sound is off). */
export function play(name) {
  if (!soundOn() || !VOICES[name]) return;
  if (name === "deal") {
    // Cards landing together (a join, reduced motion) make one sound, not a burst.
    const now = performance.now();
    if (now - lastDeal < 120) return;
    lastDeal = now;
  }
  document.body.dataset.lastSound = name; // what was played last (the page's tests read it)
  try {
    audio ??= new AudioContext();
    let start = audio.currentTime;
    for (const [frequency, seconds, type, volume] of VOICES[name]) {
      const oscillator = audio.createOscillator();
      const gain = audio.createGain();
      oscillator.type = type;
      oscillator.frequency.value = frequency;
      gain.gain.setValueAtTime(volume, start);
      gain.gain.exponentialRampToValueAtTime(0.0001, start + seconds);
      oscillator.connect(gain).connect(audio.destination);
      oscillator.start(start);
      oscillator.stop(start + seconds);
      start += seconds;
    }
  } catch {
    // No audio device: the game goes on in silence.
  }
}
