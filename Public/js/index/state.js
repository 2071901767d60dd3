// The landing page's store: server info and the create-draw form's progress.

export class HomeState extends EventTarget {
  constructor() {
    super();
    this.info = null;          // { defaultDraw, lanUrl } or null
    this.infoLoaded = false;
    this.creating = false;
    this.createError = null;   // error code
    this.created = null;       // { code, hostKey, hostUrl }
  }

  update(patch) {
    Object.assign(this, patch);
    this.dispatchEvent(new Event('change'));
  }
}
