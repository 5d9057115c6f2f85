import type { App } from '../../route-contract/index.js';
import { z } from 'zod';
import { address, ObjectMetadata } from '../schemas.js';
import { contextOf, dataRoute, errors, type RestDeps } from './kit.js';

/** GET /objects/{id}/metadata: display metadata (name, image, project) of an object. */
export function registerGetObjectMetadata(app: App, deps: RestDeps): void {
  app.get('/objects/:id/metadata', {
    config: dataRoute,
    schema: {
      tags: ['objects'],
      summary: 'Object display metadata',
      description: 'From the object type\'s Display: name, description, image_url → image, project_name → projectName, project_image_url → projectImage. Types without Display give objectId and type only.',
      params: z.object({ id: address }),
      response: { 200: z.object({ data: ObjectMetadata }), ...errors(400, 404) },
    },
  }, async (request) => ({ data: await deps.services.objects.metadata(contextOf(deps, request), request.params.id) }));
}
